import Foundation
import SQLKit

extension UserRepository {
    func find(id: String) async throws -> User? {
        try await database.read { db in
            try await db.raw("SELECT * FROM users WHERE id = \(bind: id)").first().map { try Self.user(from: $0) }
        }
    }

    /// In the caller's transaction (which ends the account's other sessions with it).
    static func setPassword(hash: String, userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE users SET password_hash = \(bind: hash) WHERE id = \(bind: userID)").run()
    }

    /// One change of admin rights at a time across instances, until the caller's transaction ends (PostgreSQL: an
    /// advisory lock; SQLite's single writer is alone already) — so the last admin is never taken by two at once.
    func serialiseAdminChanges(in db: any SQLDatabase) async throws {
        if database.kind == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(74042027)").run() }
    }

    func usage(userID: String) async throws -> Quota.Usage? {
        try await database.read { db in try await Self.usage(userID: userID, in: db) }
    }
}

extension UserRepository {
    /// Marks the person told of `year`'s moments recap in the caller's transaction; false when they already were.
    static func markMomentsRecapTold(year: Int, userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE users SET moments_recap_year = \(bind: year)
            WHERE id = \(bind: userID) AND (moments_recap_year IS NULL OR moments_recap_year < \(bind: year)) RETURNING id
            """
        ).first() != nil
    }
}

extension UserRepository {
    /// The notice kinds an account lets reach its phones, as stored (JSON); nil: all.
    static func pushKinds(userID: String, in db: any SQLDatabase) async throws -> String? {
        try await db.raw("SELECT push_kinds FROM users WHERE id = \(bind: userID)").first()?.decode(column: "push_kinds", as: String?.self)
    }

    static func setPushKinds(_ json: String, userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE users SET push_kinds = \(bind: json) WHERE id = \(bind: userID)").run()
    }
}
