import DisposableCore
import DisposablePlatform
import Foundation

/// Everything an instance is configured with; built from flags and environment by the `disposable` CLI.
public struct AppConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var dataDirectory: String
    public var database: DatabaseLocation
    /// Most connections one instance opens to PostgreSQL.
    public var databasePoolSize: Int
    /// Base of every link we hand out (join URLs, QR codes), e.g. `https://photos.example.org`.
    public var publicBaseURL: String
    /// Whether people may create their own accounts (ADM-4 turns it off).
    public var registrationEnabledByDefault: Bool
    public var limits: RateLimits
    /// The reverse proxies whose forwarded headers name the client (SEC-3); none by default.
    public var trustedProxies: TrustedProxies
    /// How long a session (an account's or a guest's token) lasts after its last use.
    public var sessionLifetime: TimeInterval
    /// Deadlines and caps on connections and live streams.
    public var connections: ConnectionLimits
    /// How long an event's photos are kept after it ends (RET-1, the seeds' "Post-Event Access (30 Days)").
    public var retention: TimeInterval
    /// Largest photo accepted, in bytes (413 above).
    public var maxUploadBytes: Int64
    /// Largest video accepted, in bytes (413 above).
    public var maxVideoBytes: Int64 = 1 << 30
    /// What unfinished resumable uploads may announce, all senders together (`--max-staged-gb`): each holds disk
    /// for up to a day.
    public var maxStagedBytes: Int64 = 10_000_000_000
    /// The longest library video accepted (`--max-library-video-minutes`); an event's are 30 seconds.
    public var maxLibraryVideoSeconds: Double = 900
    /// 1080p-equivalent seconds of library video transcoded per account and day (`--transcode-minutes-per-day`).
    public var transcodeSecondsPerDay: Int64 = 3600
    /// ffmpeg and ffprobe (videos); nil: videos are refused.
    public var videoTool: VideoTool? = VideoTool.system()
    /// Largest image accepted, in pixels, read from the header before decoding (decompression bombs, MED-3).
    public var maxPixels: Int
    /// Photos in process at once: cores + 1 by default. Renders run one per core (the rendering pool, at the lowest CPU
    /// priority), and a worker also reads, syncs and records each photo (PERF-1 on 2 cores: 2 → 3 workers took ingest
    /// from 0.86–0.93× to 0.97× pyvips); more workers would only hold their jobs waiting for a thread.
    public var mediaWorkers: Int
    /// How often an idle live stream sends a comment line, so proxies and phones keep it open.
    public var liveHeartbeat: Duration
    /// bcrypt cost for passwords; SEC-3 asks for at least 12. Tests lower it only for speed of fixtures.
    public var passwordHashCost: UInt8
    /// Whether signed thumbnails held in memory are answered in front of the router (`FastPath/`, PERF-3).
    /// Off, every request takes the plain path; the answers are the same.
    public var mediaFastPath: Bool
    /// A bearer token that may read `/metrics` from anywhere (loopback clients and admins may without it).
    public var metricsToken: String? = nil
    /// A second port, on the same host, that serves only `/metrics` to whoever reaches it (a Prometheus on another
    /// machine, the port kept to the operator's network).
    public var metricsPort: Int? = nil
    /// `smtp://host:25` or `smtps://user:password@host:465`: mail for password resets (ADM-3). None: the admin
    /// hands out reset links.
    public var smtpURL: String? = nil
    /// The From of every mail; by default `Disposable <disposable@HOST>`, HOST from the public URL.
    public var mailFrom: String? = nil
    /// Sign in with an OpenID Connect provider besides (or instead of) passwords; none by default.
    public var openID: OpenIDSettings? = nil
    /// Photos encrypted at rest with this key (`--storage-key-file`); none by default.
    public var storageKey: StorageKey? = nil
    /// Test-only (no flag offers it): outbound calls may reach loopback, where the tests' peers listen.
    public var outboundAllowsLoopback = false
    /// Tests only: how long the server's renders of a photo shown by the phone's first look wait at least, so that a
    /// test sees the first look alone.
    public var firstLookRenderDelay: TimeInterval = 0

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: String = "./data",
        database: DatabaseLocation? = nil,
        databasePoolSize: Int = 20,
        publicBaseURL: String? = nil,
        registrationEnabledByDefault: Bool = true,
        limits: RateLimits = .init(),
        trustedProxies: TrustedProxies = .none,
        connections: ConnectionLimits = .init(),
        sessionLifetimeDays: Int = 30,
        retentionDays: Int = 30,
        maxUploadBytes: Int64 = 50 * 1024 * 1024,
        maxPixels: Int = 100_000_000,
        mediaWorkers: Int = ProcessInfo.processInfo.activeProcessorCount + 1,
        liveHeartbeat: Duration = .seconds(20),
        passwordHashCost: UInt8 = 12,
        mediaFastPath: Bool = true
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.database = database ?? .sqlite(path: dataDirectory + "/disposable.sqlite")
        self.databasePoolSize = databasePoolSize
        self.publicBaseURL = Self.trimmedBaseURL(publicBaseURL ?? "http://localhost:\(port)")
        self.registrationEnabledByDefault = registrationEnabledByDefault
        self.limits = limits
        self.trustedProxies = trustedProxies
        self.connections = connections
        self.sessionLifetime = TimeInterval(sessionLifetimeDays) * 86_400
        self.retention = TimeInterval(retentionDays) * 86_400
        self.maxUploadBytes = maxUploadBytes
        self.maxPixels = maxPixels
        self.mediaWorkers = max(1, mediaWorkers)
        self.liveHeartbeat = liveHeartbeat
        self.passwordHashCost = passwordHashCost
        self.mediaFastPath = mediaFastPath
    }

    /// How often the clock's moments (reveals, ends, recaps, deletion notices) are looked for: a subscriber hears of a
    /// reveal within this. Not a flag: the tests, which run hundreds of instances at once, look less often.
    public var clockInterval: Duration = .milliseconds(250)
    /// How long an idle media worker waits for news before looking at the jobs table again (work queued here wakes
    /// it at once; this finds other instances' work and retries come due). Not a flag, as above.
    public var workerIdleWait: Duration = .seconds(1)

    public var mediaDirectory: String { dataDirectory + "/media" }

    /// Where photos are kept: the media folder by default.
    public var storage: StorageLocation? = nil
    package var blobStorage: StorageLocation { storage ?? .localFolder(path: mediaDirectory) }

    /// What the instance must never lose, and where: for storage, backups and the admin's disk figures.
    public var data: InstanceData {
        InstanceData(database: database, storage: blobStorage, storageKey: storageKey, stagingDirectory: stagingDirectory)
    }

    /// Uploads arriving. Beside the local store's files, so that storing one is a rename.
    package var stagingDirectory: URL {
        switch blobStorage {
        case .localFolder(let path): LocalBlobStore.stagingDirectory(root: path)
        case .s3: URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("staging", isDirectory: true)
        }
    }

    /// Resumable uploads under way (UP-4): kept across restarts, per instance (see DECISIONS).
    package var resumableUploadsDirectory: URL {
        URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("resumable-uploads", isDirectory: true)
    }

    /// Cookies are `Secure` only when the instance is really served over HTTPS.
    package var usesHTTPS: Bool { publicBaseURL.hasPrefix("https://") }

    package static func trimmedBaseURL(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}

/// How many failed attempts a client gets before it must wait (SEC-3, JN-4). Each is counted against the
/// address, the account or event aimed at, and the two together, so that one person's failures do not lock
/// out others behind the same address (a venue's Wi-Fi, a proxy) while guessing stays slow from anywhere.
public struct RateLimits: Sendable {
    /// Failed log-ins of one address on one account.
    public var login: RateLimit
    /// Failed log-ins of one address, whatever the account (password spraying).
    public var loginPerAddress: RateLimit
    /// Failed log-ins on one account, from every address together (distributed guessing).
    public var loginPerAccount: RateLimit
    /// Once that is spent: failed log-ins on the account from addresses that never failed nor got in there — a
    /// slow floor that new addresses cannot multiply.
    public var loginFloor: RateLimit
    /// Typed codes that match no event, per address; and wrong passwords of one address on one event.
    /// Joins through the QR code's link are never counted.
    public var join: RateLimit
    /// Wrong passwords on one event, from every address together.
    public var joinPerEvent: RateLimit
    /// Account registrations per address.
    public var registration: RateLimit
    /// Support tickets per address (SUP-2).
    public var support: RateLimit
    /// Posts, comments and likes per person (SOC-1, SOC-2): a burst, then one every few seconds.
    public var guestbookWrites: RateLimit
    /// Friend requests per account: a few at once, then one every three minutes (an e-mail address is a lookup).
    public var friendRequests: RateLimit

    public init(
        login: RateLimit = .init(burst: 10, refillEvery: .seconds(30)),
        loginPerAddress: RateLimit = .init(burst: 50, refillEvery: .seconds(6)),
        loginPerAccount: RateLimit = .init(burst: 50, refillEvery: .seconds(60)),
        loginFloor: RateLimit = .init(burst: 10, refillEvery: .seconds(120)),
        join: RateLimit = .init(burst: 20, refillEvery: .seconds(15)),
        joinPerEvent: RateLimit = .init(burst: 100, refillEvery: .seconds(3)),
        registration: RateLimit = .init(burst: 10, refillEvery: .seconds(60)),
        support: RateLimit = .init(burst: 5, refillEvery: .seconds(600)),
        guestbookWrites: RateLimit = .init(burst: 30, refillEvery: .seconds(4)),
        friendRequests: RateLimit = .init(burst: 20, refillEvery: .seconds(180))
    ) {
        self.login = login
        self.loginPerAddress = loginPerAddress
        self.loginPerAccount = loginPerAccount
        self.loginFloor = loginFloor
        self.join = join
        self.joinPerEvent = joinPerEvent
        self.registration = registration
        self.support = support
        self.guestbookWrites = guestbookWrites
        self.friendRequests = friendRequests
    }
}
