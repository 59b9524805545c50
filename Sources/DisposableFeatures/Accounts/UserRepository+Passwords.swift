import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

extension UserRepository {
    package func find(id: String) async throws -> User? {
        try await database.read { db in
            try await db.raw("SELECT * FROM users WHERE id = \(bind: id)").first().map { try Self.user(from: $0) }
        }
    }

    /// In the caller's transaction (which ends the account's other sessions with it).
    package static func setPassword(hash: String, userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE users SET password_hash = \(bind: hash) WHERE id = \(bind: userID)").run()
    }

    /// One change of admin rights at a time across instances, until the caller's transaction ends (PostgreSQL: an
    /// advisory lock; SQLite's single writer is alone already) — so the last admin is never taken by two at once.
    package func serialiseAdminChanges(in db: any SQLDatabase) async throws {
        if database.kind == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(74042027)").run() }
    }

    package func usage(userID: String) async throws -> Quota.Usage? {
        try await database.read { db in try await Self.usage(userID: userID, in: db) }
    }
}
