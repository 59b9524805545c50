import ArgumentParser
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableServer
import DisposableWeb
import Foundation
import Logging

@main
struct Disposable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disposable",
        abstract: "A self-hosted disposable camera for events.",
        version: disposableVersion,
        subcommands: [
            Serve.self, Migrate.self, Admin.self, Backup.self, Restore.self, Storage.self,
            Login.self, Logout.self, EventCommand.self, Upload.self, Sync.self, Import.self,
        ]
    )

    /// The configuration file first (OPS-1): its values stand in for unset environment variables.
    static func main() async {
        do {
            try ConfigFile.apply(arguments: CommandLine.arguments)
        } catch {
            exit(withError: error)
        }
        await main(nil)
    }
}

/// Options every command shares: where the data is. Each flag also reads an environment variable.
struct InstanceOptions: ParsableArguments {
    @Option(help: "A YAML or JSON file with any of the settings below, keyed by the flags' names (env DISPOSABLE_CONFIG).")
    var config: String?

    @Option(help: "Folder for the SQLite database and the media files (env DISPOSABLE_DATA_DIR).")
    var dataDir: String = env("DISPOSABLE_DATA_DIR") ?? "./data"

    @Option(help: "postgres://user:password@host:port/database to use PostgreSQL instead of SQLite (env DISPOSABLE_DATABASE_URL).")
    var databaseURL: String? = env("DISPOSABLE_DATABASE_URL")

    @Option(help: "Log level: trace, debug, info, notice, warning, error (env DISPOSABLE_LOG_LEVEL).")
    var logLevel: String = env("DISPOSABLE_LOG_LEVEL") ?? "info"

    @Option(help: "Log lines as text, or json: one object per line, with each request's id (env DISPOSABLE_LOG_FORMAT).")
    var logFormat: String = env("DISPOSABLE_LOG_FORMAT") ?? "text"

    func validate() throws {
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format must be text or json.") }
    }

    func logger() -> Logger {
        if logFormat == "json" { LogFormat.useJSON() }
        var logger = Logger(label: "disposable")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        return logger
    }

    func configuration(host: String = "127.0.0.1", port: Int = 8080, publicURL: String? = nil, registration: Bool = true) -> AppConfiguration {
        AppConfiguration(
            host: host, port: port, dataDirectory: dataDir,
            database: databaseURL.map(DatabaseLocation.init),
            publicBaseURL: publicURL, registrationEnabledByDefault: registration)
    }
}

func env(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the server (applies migrations first).")

    @OptionGroup var instance: InstanceOptions

    @Option(help: "Address to listen on (env DISPOSABLE_HOST).")
    var host: String = env("DISPOSABLE_HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on (env DISPOSABLE_PORT).")
    var port: Int = env("DISPOSABLE_PORT").flatMap(Int.init) ?? 8080

    @Option(help: "Public base URL used in links and QR codes, e.g. https://photos.example.org (env DISPOSABLE_PUBLIC_URL).")
    var publicURL: String? = env("DISPOSABLE_PUBLIC_URL")

    @Option(help: "Days an event's photos are kept after it ends, then deleted (env DISPOSABLE_RETENTION_DAYS).")
    var retentionDays: Int = env("DISPOSABLE_RETENTION_DAYS").flatMap(Int.init) ?? 30

    @Option(help: "Largest photo accepted, in megabytes (env DISPOSABLE_MAX_UPLOAD_MB).")
    var maxUploadMB: Int = env("DISPOSABLE_MAX_UPLOAD_MB").flatMap(Int.init) ?? 50

    @Option(help: "Largest video accepted, in megabytes (env DISPOSABLE_MAX_VIDEO_MB).")
    var maxVideoMB: Int = env("DISPOSABLE_MAX_VIDEO_MB").flatMap(Int.init) ?? 1024

    @Option(help: "The longest library video accepted, in minutes (env DISPOSABLE_MAX_LIBRARY_VIDEO_MINUTES).")
    var maxLibraryVideoMinutes: Int = env("DISPOSABLE_MAX_LIBRARY_VIDEO_MINUTES").flatMap(Int.init) ?? 15

    @Option(help: "Minutes of library video (1080p-equivalent) transcoded per account a day (env DISPOSABLE_TRANSCODE_MINUTES_PER_DAY).")
    var transcodeMinutesPerDay: Int = env("DISPOSABLE_TRANSCODE_MINUTES_PER_DAY").flatMap(Int.init) ?? 60

    @Option(help: "Gigabytes that unfinished resumable uploads may announce, all together (env DISPOSABLE_MAX_STAGED_GB).")
    var maxStagedGB: Int = env("DISPOSABLE_MAX_STAGED_GB").flatMap(Int.init) ?? 10

    @Option(help: "Most connections to PostgreSQL from this instance (env DISPOSABLE_DATABASE_POOL_SIZE).")
    var databasePoolSize: Int = env("DISPOSABLE_DATABASE_POOL_SIZE").flatMap(Int.init) ?? 20

    @Option(help: "Whether people may register accounts until the admin changes it (env DISPOSABLE_REGISTRATION).")
    var registration: Bool = env("DISPOSABLE_REGISTRATION").map { $0 == "true" || $0 == "1" } ?? true

    @Option(help: "Photos processed at once; default three per core, plus one (env DISPOSABLE_MEDIA_WORKERS).")
    var mediaWorkers: Int? = env("DISPOSABLE_MEDIA_WORKERS").flatMap(Int.init)

    @Option(help: "Answer signed thumbnails held in memory in front of the router (env DISPOSABLE_MEDIA_FAST_PATH).")
    var mediaFastPath: Bool = env("DISPOSABLE_MEDIA_FAST_PATH").map { $0 == "true" || $0 == "1" } ?? true

    @Option(
        help: """
            Reverse proxies whose forwarded header names the client, as addresses or CIDR blocks \
            separated by commas, e.g. 127.0.0.1,10.0.0.0/8 (env DISPOSABLE_TRUSTED_PROXIES). None by default.
            """)
    var trustedProxies: String = env("DISPOSABLE_TRUSTED_PROXIES") ?? ""

    @Option(
        help: """
            The one header the trusted proxies write the client's address into: x-forwarded-for or forwarded \
            (env DISPOSABLE_FORWARDED_HEADER).
            """)
    var forwardedHeader: String = env("DISPOSABLE_FORWARDED_HEADER") ?? "x-forwarded-for"

    @Option(help: "Seconds an open connection may stay silent between requests (env DISPOSABLE_IDLE_TIMEOUT).")
    var idleTimeout: Int = env("DISPOSABLE_IDLE_TIMEOUT").flatMap(Int.init) ?? 60

    @Option(help: "Seconds a request's head may take to arrive (env DISPOSABLE_HEADER_TIMEOUT).")
    var headerTimeout: Int = env("DISPOSABLE_HEADER_TIMEOUT").flatMap(Int.init) ?? 10

    @Option(help: "Seconds an upload may stall before its connection is closed (env DISPOSABLE_BODY_TIMEOUT).")
    var bodyTimeout: Int = env("DISPOSABLE_BODY_TIMEOUT").flatMap(Int.init) ?? 30

    @Option(help: "Open connections per client address, trusted proxies excepted (env DISPOSABLE_MAX_CONNECTIONS_PER_CLIENT).")
    var maxConnectionsPerClient: Int = env("DISPOSABLE_MAX_CONNECTIONS_PER_CLIENT").flatMap(Int.init) ?? 1024

    @Option(help: "Live galleries open at once per session (env DISPOSABLE_MAX_STREAMS_PER_SESSION).")
    var maxStreamsPerSession: Int = env("DISPOSABLE_MAX_STREAMS_PER_SESSION").flatMap(Int.init) ?? 8

    @Option(help: "Days a session lasts after its last use (env DISPOSABLE_SESSION_DAYS).")
    var sessionDays: Int = env("DISPOSABLE_SESSION_DAYS").flatMap(Int.init) ?? 30

    @OptionGroup(title: "Storage") var storage: StorageOptions

    @OptionGroup(title: "Sign in with OpenID Connect") var openID: OpenIDOptions

    @Option(help: "A bearer token that may read /metrics from anywhere; loopback clients and admins may without it (env DISPOSABLE_METRICS_TOKEN).")
    var metricsToken: String? = env("DISPOSABLE_METRICS_TOKEN")

    @Option(help: "smtp://host:25 or smtps://user:password@host:465 — mail for password resets (env DISPOSABLE_SMTP_URL). None by default.")
    var smtpURL: String? = env("DISPOSABLE_SMTP_URL")

    @Option(help: "The From of its mails, e.g. 'Disposable <photos@example.org>' (env DISPOSABLE_MAIL_FROM).")
    var mailFrom: String? = env("DISPOSABLE_MAIL_FROM")

    @Option(help: "A second port on --host serving only /metrics, to whoever reaches it (env DISPOSABLE_METRICS_PORT). None by default.")
    var metricsPort: Int? = env("DISPOSABLE_METRICS_PORT").flatMap(Int.init)

    func run() async throws {
        var configuration = instance.configuration(host: host, port: port, publicURL: publicURL, registration: registration)
        configuration.databasePoolSize = databasePoolSize
        configuration.storage = try storage.location()
        configuration.storageKey = try storage.key()
        configuration.openID = try openID.settings()
        if let metricsToken, metricsToken.utf8.count < 16 { throw ValidationError("--metrics-token must be at least 16 characters.") }
        configuration.metricsToken = metricsToken
        configuration.smtpURL = smtpURL
        configuration.mailFrom = mailFrom
        if let metricsPort {
            guard (1...65535).contains(metricsPort), metricsPort != port else {
                throw ValidationError("--metrics-port must be a port (1…65535) other than --port.")
            }
            configuration.metricsPort = metricsPort
        }
        do {
            guard let header = ForwardedHeader(rawValue: forwardedHeader.lowercased()) else {
                throw ValidationError("--forwarded-header must be x-forwarded-for or forwarded.")
            }
            configuration.trustedProxies = try TrustedProxies(trustedProxies, header: header)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("--trusted-proxies: \(error)")
        }
        for (name, value) in [("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout)] {
            guard (1...3600).contains(value) else { throw ValidationError("\(name) must be between 1 and 3600 seconds.") }
        }
        guard (1...100_000).contains(maxConnectionsPerClient), (1...1000).contains(maxStreamsPerSession) else {
            throw ValidationError("--max-connections-per-client must be 1…100000 and --max-streams-per-session 1…1000.")
        }
        guard (1...3650).contains(sessionDays) else { throw ValidationError("--session-days must be between 1 and 3650.") }
        configuration.connections = ConnectionLimits(
            idleTimeout: .seconds(idleTimeout), headerTimeout: .seconds(headerTimeout), bodyTimeout: .seconds(bodyTimeout),
            perClient: maxConnectionsPerClient, liveStreamsPerToken: maxStreamsPerSession)
        configuration.sessionLifetime = TimeInterval(sessionDays) * 86_400
        raiseOpenFileLimit()
        configuration.mediaFastPath = mediaFastPath
        if let mediaWorkers {
            guard (1...64).contains(mediaWorkers) else { throw ValidationError("--media-workers must be between 1 and 64.") }
            configuration.mediaWorkers = mediaWorkers
        }
        guard (1...3650).contains(retentionDays) else { throw ValidationError("--retention-days must be between 1 and 3650.") }
        configuration.retention = TimeInterval(retentionDays) * 86_400
        guard (1...4000).contains(maxUploadMB) else { throw ValidationError("--max-upload-mb must be between 1 and 4000.") }
        configuration.maxUploadBytes = Int64(maxUploadMB) * 1_048_576
        guard (1...100_000).contains(maxVideoMB) else { throw ValidationError("--max-video-mb must be between 1 and 100000.") }
        configuration.maxVideoBytes = Int64(maxVideoMB) * 1_048_576
        guard (1...100_000).contains(maxStagedGB) else { throw ValidationError("--max-staged-gb must be between 1 and 100000.") }
        configuration.maxStagedBytes = Int64(maxStagedGB) * 1_000_000_000
        guard (1...1440).contains(maxLibraryVideoMinutes), (1...100_000).contains(transcodeMinutesPerDay) else {
            throw ValidationError("--max-library-video-minutes must be 1…1440 and --transcode-minutes-per-day 1…100000.")
        }
        configuration.maxLibraryVideoSeconds = Double(maxLibraryVideoMinutes) * 60
        configuration.transcodeSecondsPerDay = Int64(transcodeMinutesPerDay) * 60
        let logger = instance.logger()
        TestSwitches.apply(to: &configuration, logger: logger)
        let database = try await openDatabase(configuration.database, poolSize: configuration.databasePoolSize, logger: logger)
        let services: AppServices
        do {
            services = try AppServices(configuration: configuration, database: database, clock: SystemClock(), logger: logger)
        } catch {
            await database.close()
            throw error
        }
        logger.info("Disposable \(disposableVersion) on http://\(host):\(port) — links use \(configuration.publicBaseURL)")
        try await buildApplication(services: services).runService()
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations and exit.")

    @OptionGroup var instance: InstanceOptions

    func run() async throws {
        let configuration = instance.configuration()
        let logger = instance.logger()
        try await withDatabase(configuration.database, logger: logger) { database in
            try await migrateDatabase(database, logger: logger)
        }
    }
}

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Administer the instance.", subcommands: [CreateAdmin.self])
}

struct CreateAdmin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an admin account.")

    @OptionGroup var instance: InstanceOptions

    @Option(help: "The admin's email address.")
    var email: String

    @Option(help: "The admin's password (at least 8 characters). Prefer DISPOSABLE_ADMIN_PASSWORD to keep it out of shell history.")
    var password: String? = env("DISPOSABLE_ADMIN_PASSWORD")

    @Option(help: "The admin's display name.")
    var name: String?

    func run() async throws {
        guard let password else { throw ValidationError("Give a password with --password or DISPOSABLE_ADMIN_PASSWORD.") }
        let configuration = instance.configuration()
        let logger = instance.logger()
        let outcome = try await withDatabase(configuration.database, logger: logger) { database in
            try await migrateDatabase(database, logger: logger)
            // Only what the command needs: no media folder, no libvips.
            let accounts = AccountService(database: database, clock: SystemClock(), configuration: configuration)
            do {
                return try await accounts.createAdmin(email: email, password: password, name: name)
            } catch let problem as Problem {
                throw ValidationError(problem.detail)
            }
        }
        switch outcome {
        case .created: print("Admin account \(email) created.")
        case .emailTaken: throw ValidationError("An account with the email \(email) already exists.")
        case .adminAlreadyExists, .wrongSetupCode: break
        }
    }
}

/// swift-log takes one backend per process: JSON lines are set up once, before the first logger.
enum LogFormat {
    private static let json: Void = LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
    static func useJSON() { _ = json }
}
