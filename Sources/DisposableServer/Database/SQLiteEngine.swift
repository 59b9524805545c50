import Foundation
import Logging
import NIOPosix
import SQLKit
import SQLiteKit

/// The embedded engine: one SQLite file in WAL mode, one connection used by one caller at a time.
///
/// A single connection keeps transactions trivially serialised (the shot limit, unique codes) and
/// is plenty for an event's traffic; SQLite answers a gallery page in well under a millisecond.
final class SQLiteEngine: DatabaseEngine {
    let kind = DatabaseKind.sqlite
    private let connection: SQLiteConnection
    /// The connection's own thread: queries never wait behind image renders or file copies.
    private let thread: NIOThreadPool
    private let lock = AsyncLock()
    private let logger: Logger

    init(path: String, logger: Logger) async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.logger = logger
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        connection = try await SQLiteConnection.open(
            storage: .file(path: path), threadPool: thread, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()
        ).get()
        // WAL + synchronous=FULL: a commit that returned survives a crash or power loss.
        for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 5000"] {
            _ = try await connection.query(pragma)
        }
    }

    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await lock.withLock {
            try await body(connection.sql(queryLogLevel: .trace))
        }
    }

    func run() async {
        // Nothing to keep alive; wait for cancellation so the service group treats us like any service.
        try? await Task.sleep(for: .seconds(1_000_000_000))
    }

    func close() async {
        // In a task of its own: closing must finish even when the caller is being cancelled.
        let (connection, thread) = (connection, thread)
        await Task {
            try? await connection.close()
            try? await thread.shutdownGracefully()
        }.value
    }
}
