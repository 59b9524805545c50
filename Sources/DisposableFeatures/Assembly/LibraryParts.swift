import DisposableCore
import DisposablePlatform
import Foundation

/// A person's own photos: the library, its WebDAV tree and renders; moments, capsules and their songs, friends and
/// the story board, and notices on phones.
package struct LibraryParts: Sendable {
    package let library: LibraryService
    /// The library over WebDAV.
    package let dav: DAVService
    package let libraryRenderer: LibraryRenderer
    package let moments: MomentService
    /// The capsule's song from the person's Maloja.
    package let scrobblers: ScrobblerService
    package let capsules: CapsuleService
    /// Notices sent to phones (Web Push).
    package let push: PushService
    package let friends: FriendService
    package let board: StoryBoardService

    package init(_ platform: PlatformParts, _ people: AccountParts, _ gatherings: EventParts) {
        let (configuration, rows, clock, logger, blobs) = (platform.configuration, platform.rows, platform.clock, platform.logger, platform.blobs)
        // Each service counts its own writes.
        let writes = { RateLimiter([.target: configuration.limits.guestbookWrites]) }
        let bell = gatherings.notifications.bell
        let libraryRows = LibraryRepository(database: rows)
        let libraryFeed = StreamWaker()
        let libraryVideos = VideoLimits(maxSeconds: configuration.maxLibraryVideoSeconds)
        let ownerZone: @Sendable (String) async throws -> TimeZone = { [profiles = people.profiles] in
            try await profiles.timeZone(of: $0).flatMap(TimeZone.init(identifier:)) ?? .gmt
        }
        library = LibraryService(
            assets: libraryRows, photos: gatherings.photos, blobs: blobs, ingest: platform.ingest,
            policy: IngestPolicy(
                maxImageBytes: configuration.maxUploadBytes, maxPixels: configuration.maxPixels,
                videos: .accepted(libraryVideos, maxBytes: configuration.maxVideoBytes)),
            pendingWrites: platform.pendingWrites, newWork: platform.newWork, feed: libraryFeed, clock: clock, logger: logger,
            ownerZone: ownerZone)
        dav = DAVService(
            entries: DAVRepository(database: rows), library: library, ingest: platform.ingest, blobs: blobs,
            pendingWrites: platform.pendingWrites, clock: clock)
        libraryRenderer = LibraryRenderer(
            assets: libraryRows, blobs: blobs, pendingWrites: platform.pendingWrites, feed: libraryFeed, pipeline: platform.renders,
            videoLimits: libraryVideos,
            budget: TranscodeBudget(
                usage: TranscodeUsageRepository(database: rows), clock: clock, secondsPerDay: configuration.transcodeSecondsPerDay),
            ownerZone: ownerZone)
        moments = MomentService(rows: MomentRepository(database: rows), clock: clock, limiter: writes(), profiles: people.profiles)
        scrobblers = ScrobblerService(
            rows: ScrobblerRepository(database: rows), maloja: Maloja(outbound: platform.outbound), limiter: writes(), clock: clock, logger: logger)
        capsules = CapsuleService(
            rows: CapsuleRepository(database: rows), profiles: people.profiles, collages: Collage(blobs: blobs, images: platform.images),
            ingest: platform.ingest, songs: scrobblers, bell: bell, clock: clock, logger: logger)
        push = PushService(
            subscriptions: PushSubscriptions(rows: PushSubscriptionRepository(database: rows), clock: clock),
            notifications: gatherings.notifications, profiles: people.profiles,
            outbound: platform.outbound, contact: configuration.publicBaseURL, clock: clock, logger: logger)
        friends = FriendService(
            rows: FriendshipRepository(database: rows), limiter: RateLimiter([.target: configuration.limits.friendRequests]), bell: bell,
            clock: clock)
        board = StoryBoardService(rows: StoryBoardRepository(database: rows), capsules: capsules, blobs: blobs, limiter: writes(), clock: clock)
    }
}
