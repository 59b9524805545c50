import DisposableCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit

/// The embedded engine: one SQLite file in WAL mode, one writer connection used by one caller at a time,
/// and a few reader connections beside it.
///
/// The single writer keeps transactions trivially serialised (the shot limit, unique codes). WAL lets the
/// readers read committed data while it writes, so gallery pages and photo lookups do not queue behind
/// each other or behind an upload.
package final class SQLiteEngine: DatabaseEngine {
    package let kind = DatabaseKind.sqlite
    /// The single writer, one caller at a time.
    private let writer: ResourcePool<SQLiteConnection>
    private let readers: ResourcePool<SQLiteConnection>
    private let connections: [SQLiteConnection]
    /// The connections' own threads: queries never wait behind image renders or file copies.
    private let threads: NIOThreadPool
    private let logger: Logger
    private let closed = NIOLockedValueBox(false)

    package init(path: String, logger: Logger) async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.logger = logger
        let readerCount = max(2, System.coreCount)
        let threads = NIOThreadPool(numberOfThreads: 1 + readerCount)
        threads.start()
        self.threads = threads
        // Every connection opened is closed again on any way out: SQLiteNIO traps (in debug builds) on a connection
        // released open, and leaks its handle otherwise.
        var opened: [SQLiteConnection] = []
        func open(_ pragmas: [String]) async throws -> SQLiteConnection {
            let connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threads, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()
            ).get()
            opened.append(connection)
            // The busy timeout first: another process may hold the file (`disposable backup` beside a running server),
            // and the other pragmas must wait for it rather than fail at once.
            for pragma in ["PRAGMA busy_timeout = 5000"] + pragmas { _ = try await connection.query(pragma) }
            return connection
        }
        do {
            // WAL + synchronous=FULL: a commit that returned survives a crash or power loss.
            let writer = try await open(["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON"])
            var readerConnections: [SQLiteConnection] = []
            for _ in 0..<readerCount {
                readerConnections.append(try await open(["PRAGMA query_only = ON"]))
            }
            self.writer = ResourcePool([writer])
            readers = ResourcePool(readerConnections)
            connections = [writer] + readerConnections
        } catch {
            await Self.close(opened, threads)
            throw error
        }
    }

    package func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writer.use { writer in
            try await body(writer.sql(queryLogLevel: .trace))
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await readers.use { reader in
            try await body(reader.sql(queryLogLevel: .trace))
        }
    }

    package func run() async {
        // Nothing to keep alive; wait for cancellation so the service group treats us like any service.
        try? await Task.sleep(for: .seconds(1_000_000_000))
    }

    package func close() async {
        let first = closed.withLockedValue { wasClosed in
            defer { wasClosed = true }
            return !wasClosed
        }
        guard first else { return }
        // In a task of its own: closing must finish even when the caller is being cancelled.
        let (connections, threads) = (connections, threads)
        await Task { await Self.close(connections, threads) }.value
    }

    private static func close(_ connections: [SQLiteConnection], _ threads: NIOThreadPool) async {
        for connection in connections { try? await connection.close() }
        try? await threads.shutdownGracefully()
    }

    /// An engine dropped without `close()` — an application whose start-up failed before its database service
    /// ran — still closes its connections (each close keeps its connection alive until it has run).
    deinit {
        guard !closed.withLockedValue({ $0 }) else { return }
        let threads = threads
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        EventLoopFuture.andAllComplete(connections.map { $0.close() }, on: loop).whenComplete { _ in
            threads.shutdownGracefully { _ in }
        }
    }
}
