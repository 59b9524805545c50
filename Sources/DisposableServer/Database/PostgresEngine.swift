import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresKit
import PostgresNIO
import SQLKit

/// The scale-out engine: a pool of PostgreSQL connections shared by every request of this instance.
final class PostgresEngine: DatabaseEngine {
    let kind = DatabaseKind.postgres
    private let client: PostgresClient
    private let logger: Logger
    private let address: (host: String, port: Int)

    init(url: String, poolSize: Int, logger: Logger) throws {
        self.logger = logger
        let parsed = try PostgresURL(url)
        address = (parsed.host, parsed.port)
        var configuration = try Self.configuration(from: url)
        configuration.options.maximumConnections = poolSize
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// How long a request waits for a connection before answering 503 (REL-3): while the database is
    /// down, the pool keeps trying to reconnect, and requests must fail cleanly rather than hang.
    static let acquireTimeout: Duration = .seconds(5)
    /// The longest any database operation of a request may take; far above what a healthy one needs.
    static let operationTimeout: Duration = .seconds(15)

    func withConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        // The leased connection, once there is one: the watchdog below closes it if it gets stuck.
        let leased = NIOLockedValueBox<PostgresConnection?>(nil)
        do {
            // The group ends before this function returns, so `body` does not really escape.
            return try await withoutActuallyEscaping(body) { body in
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        try await self.client.withConnection { connection in
                            leased.withLockedValue { $0 = connection }
                            return try await body(connection.sql(queryLogLevel: .trace))
                        }
                    }
                    group.addTask {
                        // Waiting for a busy pool is normal; waiting for a server that is not there is not.
                        var connection: PostgresConnection?
                        while connection == nil {
                            try await Task.sleep(for: Self.acquireTimeout)
                            connection = leased.withLockedValue { $0 }
                            if connection == nil, await !self.serverAnswers() { throw DatabaseUnavailable() }
                        }
                        guard let connection else { throw DatabaseUnavailable() }
                        // A statement on a connection the server dropped can wait forever, and does not
                        // listen to cancellation; closing the connection makes it fail.
                        try await Task.sleep(for: Self.operationTimeout - Self.acquireTimeout)
                        self.logger.warning("A database operation took longer than \(Self.operationTimeout); closing its connection.")
                        try? await connection.close()
                        throw DatabaseUnavailable()
                    }
                    while let result = try await group.next() {
                        if let value = result {
                            group.cancelAll()
                            return value
                        }
                    }
                    throw DatabaseUnavailable()
                }
            }
        } catch let error where Self.meansUnavailable(error) {
            throw DatabaseUnavailable()
        }
    }

    /// Whether the database server accepts a TCP connection right now (checked only after a long wait).
    private func serverAnswers() async -> Bool {
        let (host, port) = (address.host, address.port)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo(ai_flags: 0, ai_family: AF_UNSPEC, ai_socktype: Int32(SOCK_STREAM.rawValue), ai_protocol: 0,
                                     ai_addrlen: 0, ai_addr: nil, ai_canonname: nil, ai_next: nil)
                var list: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return continuation.resume(returning: false) }
                defer { freeaddrinfo(list) }
                let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
                guard fd >= 0 else { return continuation.resume(returning: false) }
                defer { Glibc.close(fd) }
                var timeout = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                continuation.resume(returning: connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0)
            }
        }
    }

    /// Errors that say the server is gone or going (restart, network), not that the query was wrong.
    static func meansUnavailable(_ error: any Error) -> Bool {
        if error is ConnectionPoolError { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection: return true
        case .server:
            // Class 08: connection exception; class 57: operator intervention (shutdown, restart).
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57")
        default: return false
        }
    }

    func run() async {
        await client.run()
    }

    func close() async {}

    private static func configuration(from url: String) throws -> PostgresClient.Configuration {
        let parsed = try PostgresURL(url)
        let tls: PostgresClient.Configuration.TLS =
            switch parsed.sslMode {
            case "require", "verify-full": .require(.makeClientConfiguration())
            case "prefer": .prefer(.makeClientConfiguration())
            default: .disable
            }
        return PostgresClient.Configuration(
            host: parsed.host, port: parsed.port, username: parsed.username, password: parsed.password, database: parsed.database, tls: tls)
    }
}

/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`
struct PostgresURL {
    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String?
    let sslMode: String

    init(_ url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw ConfigurationError("The database URL \(url) is not a valid postgres:// URL.")
        }
        self.host = host
        port = components.port ?? 5432
        username = components.user ?? "postgres"
        password = components.password
        let path = String(components.path.drop { $0 == "/" })
        database = path.isEmpty ? nil : path
        sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
    }

    /// The settings for a single connection of our own (the change listener).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case "require", "verify-full": .require(try .init(configuration: .makeClientConfiguration()))
            case "prefer": .prefer(try .init(configuration: .makeClientConfiguration()))
            default: .disable
            }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}

/// A configuration value we cannot use, with the sentence to show the operator.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
