import Foundation
import Logging

/// The long-lived parts of an instance, built once and handed to controllers through initialisers.
public struct AppServices: Sendable {
    /// What the `Server` header says.
    static let serverName = "Disposable"
    public let configuration: AppConfiguration
    public let database: any DatabaseEngine
    public let clock: any AppClock
    public let logger: Logger
    let users: UserRepository
    let tokens: AccessTokenRepository
    public let events: EventRepository
    let guests: GuestRepository
    let settings: InstanceSettingsRepository
    let blobs: any BlobStore
    let passwords: PasswordHasher
    public let photos: PhotoRepository
    let jobs: JobQueue
    let images: any ImageProcessor
    /// Wakes the media workers as soon as a photo is stored.
    let newWork = WorkSignal()
    /// Opens once migrations and the storage sweep are done; background services wait for it.
    let started = StartupGate()
    /// Fans change-log entries out to this instance's live subscribers (LIVE-1).
    let changes: ChangeHub
    /// Identities and events reads may take from memory for a second (PERF-2).
    let recentReads: RecentReads
    /// Signs thumbnail and preview links; its key is loaded at start-up.
    let media = MediaSigner()

    public init(configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger) throws {
        try self.init(configuration: configuration, database: database, clock: clock, logger: logger, recentReads: RecentReads())
    }

    init(configuration: AppConfiguration, database: any DatabaseEngine, clock: any AppClock, logger: Logger, recentReads: RecentReads) throws {
        self.recentReads = recentReads
        self.configuration = configuration
        self.database = database
        self.clock = clock
        self.logger = logger
        users = UserRepository(database: database)
        tokens = AccessTokenRepository(database: database)
        events = EventRepository(database: database)
        guests = GuestRepository(database: database)
        settings = InstanceSettingsRepository(database: database, registrationDefault: configuration.registrationEnabledByDefault)
        blobs = try LocalBlobStore(root: configuration.mediaDirectory)
        passwords = PasswordHasher(cost: configuration.passwordHashCost)
        photos = PhotoRepository(database: database)
        jobs = JobQueue(database: database)
        images = try VipsImageProcessor()
        changes = ChangeHub(database: database, recentReads: recentReads)
    }
}

extension AppServices {
    /// Signed thumbnail and preview links for a response made now.
    var mediaLinks: MediaLinks? { media.links(now: clock.now) }
}
