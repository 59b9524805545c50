import DisposableCore
import Logging
import SQLKit

/// Which SQL engine is behind the app: the embedded default or the scale-out one.
public enum DatabaseKind: String, Sendable {
    case sqlite, postgres
}

/// One SQL codebase, two engines: repositories only see `SQLDatabase` handles from here.
public protocol DatabaseEngine: Sendable {
    var kind: DatabaseKind { get }
    /// Runs `body` with exclusive use of one connection.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body`, which only reads, on a connection that may not write (SQLite: one of its readers beside
    /// the single writer). It sees everything committed before it started.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Keeps the engine's connections alive until cancelled (a service of the application).
    func run() async
    func close() async
}

extension DatabaseEngine {
    /// Throws unless the database answers a trivial query (the health check).
    public func ping() async throws {
        try await sql { db in try await db.raw("SELECT 1 AS ok").run() }
    }

    /// Runs `body` in one transaction: all of it is committed, or none of it.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let begin = kind == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN"
        return try await withConnection { db in
            try await db.raw(SQLQueryString(begin)).run()
            do {
                let result = try await body(db)
                try await db.raw("COMMIT").run()
                return result
            } catch {
                try? await db.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// A single statement outside an explicit transaction.
    public func sql<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await withConnection(body)
    }
}

/// The database cannot be reached right now (PostgreSQL restarting, network down): answered with 503.
public struct DatabaseUnavailable: Error { package init() {} }

/// Opens the engine a configuration names.
public func openDatabase(_ location: DatabaseLocation, poolSize: Int = 20, logger: Logger) async throws -> any DatabaseEngine {
    switch location {
    case .sqlite(let path): try await SQLiteEngine(path: path, logger: logger)
    case .postgres(let url): try PostgresEngine(url: url, poolSize: poolSize, logger: logger)
    }
}

/// Runs `body` with an open, running engine, and closes it afterwards (for CLI commands and tests).
public func withDatabase<T: Sendable>(
    _ location: DatabaseLocation,
    logger: Logger,
    _ body: @Sendable (any DatabaseEngine) async throws -> T
) async throws -> T {
    let engine = try await openDatabase(location, poolSize: 2, logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await engine.run() }
        defer { group.cancelAll() }
        do {
            let result = try await body(engine)
            await engine.close()
            return result
        } catch {
            await engine.close()
            throw error
        }
    }
}
