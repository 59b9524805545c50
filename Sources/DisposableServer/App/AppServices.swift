import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// The parts of one instance, built once here and handed to the controllers, pages, background services and
/// CLI commands through their initialisers: each of those gets only the services it uses.
public struct AppServices: Sendable {
    public let configuration: AppConfiguration
    public let database: any DatabaseEngine
    public let clock: any AppClock
    public let logger: Logger

    // Feature services: each owns its rules (and its rate limiters).
    public let accounts: AccountService
    /// Devices' own passwords for WebDAV.
    package let appPasswords: AppPasswordService
    package let events: EventService
    package let joining: JoinService
    package let photos: PhotoService
    package let resumableUploads: ResumableUploadService
    /// Forwarding headers seen while no proxy is trusted: said on the admin panel.
    package let untrustedProxy: UntrustedProxyNotice
    package let gallery: GalleryService
    package let recaps: RecapService
    package let moments: MomentService
    package let capsules: CapsuleService
    /// The capsule's song from the person's Maloja.
    package let scrobblers: ScrobblerService
    /// Notices sent to phones (Web Push).
    package let push: PushService
    /// Sign in with an OpenID Connect provider, when one is set.
    package let openID: OpenIDService?
    package let friends: FriendService
    package let board: StoryBoardService
    package let admin: AdminService
    package let myData: MyDataService
    package let profiles: ProfileService
    package let passwordResets: PasswordResetService
    package let signUps: SignUpService
    package let support: SupportService
    /// Errors browsers met on the pages (crash reports for the admin).
    package let clientErrors: ClientErrorService
    package let library: LibraryService
    /// The library over WebDAV.
    package let dav: DAVService
    package let guestbook: GuestbookService
    package let notifications: NotificationService

    // What they share.
    package let blobs: CachingBlobStore
    package let staging: UploadStaging
    package let pendingWrites: PendingWrites
    package let jobs: JobQueue
    package let deletion: EventDeletion
    package let renderer: PhotoRenderer
    package let libraryRenderer: LibraryRenderer
    /// Fans change-log entries out to this instance's live subscribers (LIVE-1).
    package let changes: ChangeHub
    /// Identities and event rows reads may take from memory for a second (PERF-2).
    package let recentReads: RecentReads
    /// Signs thumbnail and preview links; its key is loaded at start-up.
    package let signer: MediaSigner
    /// Wakes the media workers as soon as a photo is stored.
    package let newWork = WorkSignal()
    /// Opens once migrations and the storage checks are done; background services wait for it.
    package let started = StartupGate()
    package let retention: RetentionSweeper
    package let requestLog: RequestLog
    package let liveStreams: LiveStreamSlots
    /// The numbers the admin panel and `/metrics` show.
    package let statistics: InstanceStatistics

    public init(configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger) throws {
        try self.init(configuration: configuration, database: database, clock: clock, logger: logger, recentReads: RecentReads())
    }

    package init(configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger, recentReads: RecentReads) throws
    {
        self.configuration = configuration
        self.database = database
        self.clock = clock
        self.logger = logger
        self.recentReads = recentReads
        requestLog = RequestLog(logger: logger)
        liveStreams = LiveStreamSlots(perToken: configuration.connections.liveStreamsPerToken)
        if case .s3(let settings) = configuration.blobStorage {
            signer = MediaSigner(bucket: BucketLinks(settings: settings))
        } else {
            signer = MediaSigner()
        }
        let links = InstanceLinks(publicBaseURL: configuration.publicBaseURL, retention: configuration.retention)
        let passwords = PasswordHasher(cost: configuration.passwordHashCost)
        let eventRows = EventRepository(database: Database(database))
        let guests = GuestRepository(database: Database(database))
        var photoRows = PhotoRepository(database: Database(database))
        photoRows.firstLookRenderDelay = configuration.firstLookRenderDelay
        let images = try VipsImageProcessor()
        blobs = try makeBlobStore(configuration.data)
        staging = try UploadStaging(directory: configuration.stagingDirectory)
        changes = ChangeHub(
            log: ChangeLogRepository(database: Database(database)), onNews: { recentReads.heard($1, of: $0) },
            onDeletion: { recentReads.forgetAll() })
        pendingWrites = PendingWrites(
            rows: PendingWriteRepository(database: Database(database)), blobs: blobs, clock: clock, logger: logger,
            instance: "\(ProcessInfo.processInfo.hostName):\(configuration.port)")
        jobs = JobQueue(rows: JobRepository(database: Database(database)))
        deletion = EventDeletion(
            events: eventRows, records: DeletionRecordRepository(database: Database(database)), photos: photoRows, blobs: blobs, changes: changes,
            clock: clock)

        accounts = AccountService(database: database, clock: clock, configuration: configuration)
        appPasswords = AppPasswordService(
            passwords: AppPasswordRepository(database: Database(database)), accounts: accounts, clock: clock, limiter: accounts.loginLimiter)
        let rememberedEvents = RememberedEvents(events: eventRows, recent: recentReads)
        events = EventService(
            events: eventRows, guests: guests, coOrganizers: CoOrganizerRepository(database: Database(database)), passwords: passwords, clock: clock,
            links: links,
            readEvent: { try await rememberedEvents.event($0) }, changes: changes, deletion: deletion)
        joining = JoinService(
            transactions: Transactions(database), events: eventRows, guests: guests, tokens: accounts.tokens,
            passwords: passwords, clock: clock, links: links,
            guessLimiter: JoinService.guessLimiter(perAddress: configuration.limits.join, perEvent: configuration.limits.joinPerEvent))
        let pictures = ShooterPictures(users: UserRepository(database: Database(database)), recent: recentReads.pictures)
        let guestbookRows = GuestbookRepository(database: Database(database))
        untrustedProxy = UntrustedProxyNotice(logger: logger)
        let outbound = OutboundHTTP(policy: AddressPolicy(allowsLoopback: configuration.outboundAllowsLoopback), logger: logger)
        let videos = configuration.videoTool.map(VideoProcessor.init(tool:))
        if videos == nil { logger.warning("ffmpeg and ffprobe were not found: videos will be refused.") }
        let ingest = Ingest(staging: staging, images: images, videos: videos, blobs: blobs, pendingWrites: pendingWrites, logger: logger)
        photos = PhotoService(
            photos: photoRows, events: events, joining: joining, blobs: blobs, redactions: LocationRedactions(), ingest: ingest,
            pendingWrites: pendingWrites, signer: signer, pictures: pictures, changes: changes, newWork: newWork, clock: clock,
            limits: .init(maxBytes: configuration.maxUploadBytes, maxPixels: configuration.maxPixels, maxVideoBytes: configuration.maxVideoBytes),
            likes: guestbookRows)
        gallery = GalleryService(photos: photoRows, events: events, signer: signer, pictures: pictures, clock: clock, likes: guestbookRows)
        recaps = RecapService(events: events, photos: photoRows, blobs: blobs, images: images, signer: signer, pictures: pictures, clock: clock)
        notifications = NotificationService(
            rows: NotificationRepository(database: Database(database)), bell: StreamWaker(), clock: clock, retention: configuration.retention)
        guestbook = GuestbookService(
            photos: photos, rows: guestbookRows, limiter: RateLimiter([.target: configuration.limits.guestbookWrites]), bell: notifications.bell)
        profiles = ProfileService(
            users: UserRepository(database: Database(database)), blobs: blobs, ingest: ingest,
            avatarPolicy: .avatar(maxPixels: configuration.maxPixels))
        moments = MomentService(
            rows: MomentRepository(database: Database(database)), clock: clock, limiter: RateLimiter([.target: configuration.limits.guestbookWrites]),
            profiles: profiles)
        scrobblers = ScrobblerService(
            rows: ScrobblerRepository(database: Database(database)), maloja: Maloja(outbound: outbound),
            limiter: RateLimiter([.target: configuration.limits.guestbookWrites]),
            clock: clock, logger: logger)
        capsules = CapsuleService(
            rows: CapsuleRepository(database: Database(database)), profiles: profiles, collages: Collage(blobs: blobs, images: images),
            ingest: ingest, songs: scrobblers,
            bell: notifications.bell, clock: clock, logger: logger)
        push = PushService(
            subscriptions: PushSubscriptions(rows: PushSubscriptionRepository(database: Database(database)), clock: clock),
            notifications: notifications, profiles: profiles,
            outbound: outbound, contact: configuration.publicBaseURL, clock: clock, logger: logger)
        if let settings = configuration.openID {
            openID = OpenIDService(
                settings: settings, outbound: outbound, transactions: Transactions(database), links: OpenIDRepository(database: Database(database)),
                clock: clock, accounts: accounts,
                publicBaseURL: configuration.publicBaseURL, logger: logger)
        } else {
            openID = nil
        }
        friends = FriendService(
            rows: FriendshipRepository(database: Database(database)), limiter: RateLimiter([.target: configuration.limits.friendRequests]),
            bell: notifications.bell, clock: clock)
        board = StoryBoardService(
            rows: StoryBoardRepository(database: Database(database)), capsules: capsules, blobs: blobs,
            limiter: RateLimiter([.target: configuration.limits.guestbookWrites]),
            clock: clock)
        myData = MyDataService(
            rows: PersonalDataRepository(database: Database(database)), accounts: accounts, appPasswords: appPasswords, profiles: profiles,
            events: events,
            photos: photos,
            photoRows: photoRows, deletion: deletion,
            pendingWrites: pendingWrites, blobs: blobs, changes: changes, clock: clock)
        statistics = InstanceStatistics(rows: InstanceStatisticsRepository(database: Database(database)))
        admin = AdminService(
            accounts: accounts, myData: myData, statistics: statistics, clock: clock, storage: configuration.blobStorage)
        let mailer: (any Mailer)? = try configuration.smtpURL.map { url in
            let host = URL(string: configuration.publicBaseURL)?.host ?? "localhost"
            return SMTPMailer(settings: try SMTPSettings(url: url, from: configuration.mailFrom ?? "Disposable <disposable@\(host)>"), logger: logger)
        }
        support = SupportService(
            rows: SupportRepository(database: Database(database)), mailer: mailer, clock: clock, limiter: RateLimiter(configuration.limits.support))
        clientErrors = ClientErrorService(
            rows: ClientErrorRepository(database: Database(database)), clock: clock, limiter: RateLimiter(ClientErrorService.perAddress))
        passwordResets = PasswordResetService(
            rows: PasswordResetRepository(database: Database(database)), accounts: accounts, mailer: mailer,
            publicBaseURL: configuration.publicBaseURL, clock: clock, logger: logger)
        signUps = SignUpService(
            accounts: accounts, pending: PendingSignUpRepository(database: Database(database)), mailer: mailer,
            publicBaseURL: configuration.publicBaseURL, clock: clock, logger: logger, passwordsOff: configuration.openID?.only == true)
        let derivatives = Derivatives(blobs: blobs, images: images, videos: videos, scratch: staging.directory)
        renderer = PhotoRenderer(
            photos: photoRows, blobs: blobs, derivatives: derivatives, pendingWrites: pendingWrites, changes: changes, jobs: jobs, clock: clock)
        let libraryRows = LibraryRepository(database: Database(database))
        let libraryFeed = StreamWaker()
        let libraryVideos = VideoLimits(maxSeconds: configuration.maxLibraryVideoSeconds)
        let ownerZone: @Sendable (String) async throws -> TimeZone = { [profiles] in
            try await profiles.timeZone(of: $0).flatMap(TimeZone.init(identifier:)) ?? .gmt
        }
        library = LibraryService(
            assets: libraryRows, photos: photos, blobs: blobs, ingest: ingest,
            policy: IngestPolicy(
                maxImageBytes: configuration.maxUploadBytes, maxPixels: configuration.maxPixels,
                videos: .accepted(libraryVideos, maxBytes: configuration.maxVideoBytes)),
            pendingWrites: pendingWrites, newWork: newWork, feed: libraryFeed, clock: clock, logger: logger, ownerZone: ownerZone)
        dav = DAVService(
            entries: DAVRepository(database: Database(database)), library: library, ingest: ingest, blobs: blobs, pendingWrites: pendingWrites,
            clock: clock)
        libraryRenderer = LibraryRenderer(
            assets: libraryRows, blobs: blobs, derivatives: derivatives, pendingWrites: pendingWrites, feed: libraryFeed, jobs: jobs,
            videoLimits: libraryVideos,
            budget: TranscodeBudget(
                usage: TranscodeUsageRepository(database: Database(database)), clock: clock, secondsPerDay: configuration.transcodeSecondsPerDay),
            ownerZone: ownerZone)
        resumableUploads = try ResumableUploadService(
            transactions: Transactions(database), rows: ResumableUploadRepository(database: Database(database)),
            targets: [EventPhotoUploads(photos: photos), LibraryUploads(library: library)], staging: staging,
            directory: configuration.resumableUploadsDirectory, maxStagedBytes: configuration.maxStagedBytes,
            storageKey: configuration.data.storageKey, clock: clock)
        retention = RetentionSweeper(
            deletion: deletion, pendingWrites: pendingWrites, tokens: accounts.tokens, guests: guests,
            uploads: resumableUploads, library: library,
            retention: configuration.retention, clock: clock, logger: logger, started: started, interval: .seconds(600))
    }
}
