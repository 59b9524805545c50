import DisposableCore
import SQLKit

/// What a repository holds: statements, reads and transactions on the instance's database, and which engine it is
/// (for the few statements that differ). The engine itself — its connections, pool and lifecycle — stays with the
/// composition root; services hold `Transactions`, to pass one unit of work to several repositories.
public struct Database: Sendable {
    private let engine: any DatabaseEngine

    public init(_ engine: any DatabaseEngine) {
        self.engine = engine
    }

    package var kind: DatabaseKind { engine.kind }

    /// A single statement outside an explicit transaction.
    package func sql<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await engine.sql(body)
    }

    /// Runs `body`, which only reads, on a connection that may not write.
    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await engine.read(body)
    }

    /// Runs `body` in one transaction: all of it is committed, or none of it.
    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await engine.transaction(body)
    }
}
