import DisposableCore
import DisposablePlatform
import Foundation

/// The instance's own business: the admin and its statistics, a person's data and its erasure, support and crash
/// reports, unfinished uploads, the retention sweep, and what the request log and live streams keep.
package struct InstanceParts: Sendable {
    package let myData: MyDataService
    /// The numbers the admin panel and `/metrics` show.
    package let statistics: InstanceStatistics
    package let admin: AdminService
    package let support: SupportService
    /// Errors browsers met on the pages (crash reports for the admin).
    package let clientErrors: ClientErrorService
    package let resumableUploads: ResumableUploadService
    package let retention: RetentionSweeper
    /// Forwarding headers seen while no proxy is trusted: said on the admin panel.
    package let untrustedProxy: UntrustedProxyNotice
    package let requestLog: RequestLog
    package let liveStreams: LiveStreamSlots
    /// Opens once migrations and the storage checks are done; background services wait for it.
    package let started = StartupGate()

    package init(_ platform: PlatformParts, _ people: AccountParts, _ gatherings: EventParts, _ personal: LibraryParts) throws {
        let (configuration, rows, clock, logger) = (platform.configuration, platform.rows, platform.clock, platform.logger)
        requestLog = RequestLog(logger: logger)
        liveStreams = LiveStreamSlots(perToken: configuration.connections.liveStreamsPerToken)
        untrustedProxy = UntrustedProxyNotice(logger: logger)
        myData = MyDataService(
            rows: PersonalDataRepository(database: rows), accounts: people.accounts, appPasswords: people.appPasswords,
            profiles: people.profiles, events: gatherings.events, photos: gatherings.photos, photoRows: gatherings.photoRows,
            deletion: gatherings.deletion, pendingWrites: platform.pendingWrites, blobs: platform.blobs, changes: platform.changes,
            clock: clock)
        statistics = InstanceStatistics(rows: InstanceStatisticsRepository(database: rows))
        admin = AdminService(
            accounts: people.accounts, myData: myData, statistics: statistics, clock: clock, storage: configuration.blobStorage)
        support = SupportService(
            rows: SupportRepository(database: rows), mailer: platform.mailer, clock: clock, limiter: RateLimiter(configuration.limits.support))
        clientErrors = ClientErrorService(
            rows: ClientErrorRepository(database: rows), clock: clock, limiter: RateLimiter(ClientErrorService.perAddress))
        resumableUploads = try ResumableUploadService(
            transactions: platform.transactions, rows: ResumableUploadRepository(database: rows),
            targets: [EventPhotoUploads(photos: gatherings.photos), LibraryUploads(library: personal.library)], staging: platform.staging,
            directory: configuration.resumableUploadsDirectory, maxStagedBytes: configuration.maxStagedBytes,
            storageKey: configuration.data.storageKey, clock: clock)
        retention = RetentionSweeper(
            deletion: gatherings.deletion, pendingWrites: platform.pendingWrites, tokens: people.accounts.tokens,
            guests: gatherings.guestRows, uploads: resumableUploads, library: personal.library,
            retention: configuration.retention, clock: clock, logger: logger, started: started, interval: .seconds(600))
    }
}
