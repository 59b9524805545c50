import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// What every feature runs on, built once: the engine as repositories hold it, storage, staging, pending writes,
/// jobs, the change hub, media tools, the one outbound client and the mailer.
package struct PlatformParts: Sendable {
    package let configuration: AppConfiguration
    package let rows: Database
    package let transactions: Transactions
    package let clock: any AppClock
    package let logger: Logger
    package let recentReads: RecentReads
    package let blobs: CachingBlobStore
    package let staging: UploadStaging
    package let pendingWrites: PendingWrites
    package let jobs: JobQueue
    /// Fans change-log entries out to this instance's live subscribers (LIVE-1).
    package let changes: ChangeHub
    /// Signs thumbnail and preview links; its key is loaded at start-up.
    package let signer: MediaSigner
    package let images: VipsImageProcessor
    package let videos: VideoProcessor?
    package let ingest: Ingest
    package let derivatives: Derivatives
    /// The one way an original becomes what people see; features add the steps that follow a render.
    package let renders: RenderPipeline
    package let outbound: OutboundHTTP
    package let mailer: (any Mailer)?
    package let links: InstanceLinks
    package let passwords: PasswordHasher
    /// Wakes the media workers as soon as a photo is stored.
    package let newWork = WorkSignal()

    package init(
        configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger, recentReads: RecentReads
    ) throws {
        self.configuration = configuration
        rows = Database(database)
        transactions = Transactions(database)
        self.clock = clock
        self.logger = logger
        self.recentReads = recentReads
        if case .s3(let settings) = configuration.blobStorage {
            signer = MediaSigner(bucket: BucketLinks(settings: settings))
        } else {
            signer = MediaSigner()
        }
        links = InstanceLinks(publicBaseURL: configuration.publicBaseURL, retention: configuration.retention)
        passwords = PasswordHasher(cost: configuration.passwordHashCost)
        images = try VipsImageProcessor()
        blobs = try makeBlobStore(configuration.data)
        staging = try UploadStaging(directory: configuration.stagingDirectory)
        changes = ChangeHub(
            log: ChangeLogRepository(database: rows), onNews: { recentReads.heard($1, of: $0) }, onDeletion: { recentReads.forgetAll() })
        pendingWrites = PendingWrites(
            rows: PendingWriteRepository(database: rows), blobs: blobs, clock: clock, logger: logger,
            instance: "\(ProcessInfo.processInfo.hostName):\(configuration.port)")
        jobs = JobQueue(rows: JobRepository(database: rows))
        outbound = OutboundHTTP(policy: AddressPolicy(allowsLoopback: configuration.outboundAllowsLoopback), logger: logger)
        videos = configuration.videoTool.map(VideoProcessor.init(tool:))
        if videos == nil { logger.warning("ffmpeg and ffprobe were not found: videos will be refused.") }
        ingest = Ingest(staging: staging, images: images, videos: videos, blobs: blobs, pendingWrites: pendingWrites, logger: logger)
        derivatives = Derivatives(blobs: blobs, images: images, videos: videos, scratch: staging.directory)
        renders = RenderPipeline(blobs: blobs, derivatives: derivatives, jobs: jobs)
        mailer = try configuration.smtpURL.map { url in
            let host = URL(string: configuration.publicBaseURL)?.host ?? "localhost"
            return SMTPMailer(settings: try SMTPSettings(url: url, from: configuration.mailFrom ?? "Disposable <disposable@\(host)>"), logger: logger)
        }
    }
}
