import DisposableCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresKit
import PostgresNIO
import SQLKit

/// The scale-out engine: a pool of PostgreSQL connections shared by every request of this instance.
package final class PostgresEngine: DatabaseEngine {
    package let kind = DatabaseKind.postgres
    private let client: PostgresClient
    private let logger: Logger
    private let address: (host: String, port: Int)
    /// Whether the server accepted a TCP connection at the last check (once a second): while it does not,
    /// requests get 503 at once instead of queueing for a pool that cannot connect (REL-3).
    private let reachable = NIOLockedValueBox(true)
    /// Opened as `run()` starts the pool. Migrations run while the services start, side by side: a query
    /// asked of the pool before that would only wait, but PostgresNIO logs a warning for each one.
    private let poolRunning = NIOLockedValueBox(PoolRunning())

    private struct PoolRunning {
        var isRunning = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    package init(url: String, poolSize: Int, logger: Logger) throws {
        self.logger = logger
        let parsed = try PostgresURL(url)
        address = (parsed.host, parsed.port)
        var configuration = try Self.configuration(from: url)
        configuration.options.maximumConnections = poolSize
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await withConnection(body)
    }

    package func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        await untilPoolRuns()
        guard reachable.withLockedValue({ $0 }) else { throw DatabaseUnavailable() }
        let client = client
        do {
            return try await Self.withDeadline(Self.statementDeadline) {
                try await client.withConnection { connection in
                    try await body(connection.sql(queryLogLevel: .trace))
                }
            }
        } catch let error where Self.meansUnavailable(error) {
            throw DatabaseUnavailable()
        }
    }

    /// Our statements take milliseconds, migrations and a busy pool's queue seconds: one still waiting after
    /// two minutes has lost its server.
    package static let statementDeadline = Duration.seconds(120)

    /// Runs `work`, but answers `DatabaseUnavailable` once `deadline` passes. PostgresNIO (1.33.2) can leave a
    /// statement that was in flight when the server shut down waiting forever, deaf to cancellation: a
    /// structured task group would wait with it, so the work runs in a task of its own that is abandoned.
    package static func withDeadline<T: Sendable>(_ deadline: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let pending = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
        let worker = NIOLockedValueBox<Task<Void, Never>?>(nil)
        let finish = { @Sendable (result: Result<T, any Error>) in pending.withLockedValue { $0.take() }?.resume(with: result) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.withLockedValue { $0 = continuation }
                let timer = Task {
                    try await Task.sleep(for: deadline)
                    finish(.failure(DatabaseUnavailable()))
                }
                worker.withLockedValue {
                    $0 = Task {
                        defer { timer.cancel() }
                        do { finish(.success(try await work())) } catch { finish(.failure(error)) }
                    }
                }
            }
        } onCancel: {
            worker.withLockedValue { $0 }?.cancel()
        }
    }

    /// Errors that say the server is gone or going (restart, network), not that the query was wrong.
    package static func meansUnavailable(_ error: any Error) -> Bool {
        // The pool's own errors (its circuit breaker after failed reconnects) come from an internal module.
        if error is ConnectionPoolError || String(describing: type(of: error)) == "ConnectionPoolError" { return true }
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

    package func run() async {
        // The pool runs in a task of its own: PostgresNIO (1.33.2) can fail to end its `run()` once cancelled (seen in
        // the tests: no connection left, all threads idle, the shutdown waiting forever), and a server told to stop
        // must stop. It is cancelled with this task and given a while; then we go on without it.
        let pool = Task { await self.client.run() }
        let waiters = poolRunning.withLockedValue { state in
            state.isRunning = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        await withTaskCancellationHandler {
            while !Task.isCancelled {
                let answers = await self.serverAnswers()
                let was = self.reachable.withLockedValue { reachable in
                    defer { reachable = answers }
                    return reachable
                }
                if was != answers {
                    self.logger.warning(answers ? "The database answers again." : "The database does not answer; requests get 503.")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        } onCancel: {
            pool.cancel()
        }
        if await !Self.ends(pool, within: Self.poolShutdownGrace) {
            logger.warning("The database pool did not close within \(Self.poolShutdownGrace); stopping without waiting for it.")
        }
    }

    package static let poolShutdownGrace = Duration.seconds(10)

    /// Whether `task` ends within `limit` (it is not waited on after that).
    package static func ends(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            let resumed = NIOLockedValueBox(false)
            let finish = { @Sendable (ended: Bool) in
                guard
                    resumed.withLockedValue({ done in
                        defer { done = true }; return !done
                    })
                else { return }
                continuation.resume(returning: ended)
            }
            Task {
                await task.value
                finish(true)
            }
            Task {
                try? await Task.sleep(for: limit)
                finish(false)
            }
        }
    }

    private func untilPoolRuns() async {
        if poolRunning.withLockedValue({ $0.isRunning }) { return }
        await withCheckedContinuation { waiter in
            let runs = poolRunning.withLockedValue { state in
                if !state.isRunning { state.waiters.append(waiter) }
                return state.isRunning
            }
            if runs { waiter.resume() }
        }
    }

    /// Whether the database server accepts a TCP connection right now.
    private func serverAnswers() async -> Bool {
        let (host, port) = (address.host, address.port)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo(
                    ai_flags: 0, ai_family: AF_UNSPEC, ai_socktype: Int32(SOCK_STREAM.rawValue), ai_protocol: 0,
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

    package func close() async {}

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
package struct PostgresURL {
    package let host: String
    package let port: Int
    package let username: String
    package let password: String?
    package let database: String?
    package let sslMode: String

    package init(_ url: String) throws {
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
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
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
