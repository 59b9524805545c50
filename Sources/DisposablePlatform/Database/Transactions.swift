import DisposableCore
import SQLKit

/// What a service may do with the database: run a unit of work — one transaction, or one read — and hand its
/// connection to repositories, which alone speak SQL (scripts/check-architecture). A transaction that crosses
/// features passes the same connection along: each feature's repository writes its own tables in it, and all of
/// it commits or none. Services hold this, never the engine (its connections, pool and lifecycle).
package struct Transactions: Sendable {
    private let engine: any DatabaseEngine

    package init(_ engine: any DatabaseEngine) {
        self.engine = engine
    }

    package var kind: DatabaseKind { engine.kind }

    /// Runs `body` in one transaction: all of it is committed, or none of it.
    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await engine.transaction(body)
    }

    /// Runs `body`, which only reads, on a connection that may not write.
    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await engine.read(body)
    }

    /// Throws unless the database answers (the health check).
    package func ping() async throws {
        try await engine.ping()
    }
}
