import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Accounts in the database.
struct UserRepository: Sendable {
    package let database: Database

    /// A new account; returns nil when the email is already taken. `emailProven`: its owner showed the address is
    /// theirs (a mailed link followed, a provider that verified it).
    package func create(
        email: String, name: String, passwordHash: String, isAdmin: Bool, termsVersion: String? = nil, emailProven: Bool = false, now: Date,
        in db: any SQLDatabase
    ) async throws -> User? {
        let user = User(id: newID(), email: email, name: name, isAdmin: isAdmin, createdAt: now)
        let inserted = try await db.raw(
            """
            INSERT INTO users (id, email, name, password_hash, is_admin, created_at, terms_version, terms_accepted_at, email_proven_at)
            VALUES (\(bind: user.id), \(bind: email), \(bind: name), \(bind: passwordHash), \(bind: isAdmin), \(bind: now.millisecondsSince1970),
                \(bind: termsVersion), \(bind: termsVersion == nil ? nil : now.millisecondsSince1970),
                \(bind: emailProven ? now.millisecondsSince1970 : nil))
            ON CONFLICT (email) DO NOTHING
            RETURNING id
            """
        ).first()
        return inserted == nil ? nil : user
    }

    /// The account with this (normalised) email and its password hash.
    package func findWithPassword(email: String) async throws -> (User, passwordHash: String)? {
        try await database.sql { db in
            guard let row = try await db.raw("SELECT * FROM users WHERE email = \(bind: email)").first() else { return nil }
            return (try Self.user(from: row), try row.decode(column: "password_hash", as: String.self))
        }
    }

    /// The account with this (normalised) email, and whether that address was ever proven to be its owner's.
    package func findWithProof(email: String) async throws -> (User, proven: Bool)? {
        try await database.sql { db in
            guard let row = try await db.raw("SELECT * FROM users WHERE email = \(bind: email)").first() else { return nil }
            return (try Self.user(from: row), try row.decode(column: "email_proven_at", as: Int64?.self) != nil)
        }
    }

    /// The account's address is its owner's (a provider verified it).
    package func markEmailProven(_ userID: String, email: String, now: Date, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE users SET email_proven_at = \(bind: now.millisecondsSince1970)
            WHERE id = \(bind: userID) AND email = \(bind: email) AND email_proven_at IS NULL
            """
        ).run()
    }

    package func adminExists(in db: any SQLDatabase) async throws -> Bool {
        try await db.raw("SELECT id FROM users WHERE is_admin = \(bind: true) LIMIT 1").first() != nil
    }

    /// Whether an admin other than `userID` exists.
    package func otherAdminExists(besides userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw("SELECT id FROM users WHERE is_admin = \(bind: true) AND id <> \(bind: userID) LIMIT 1").first() != nil
    }

    package func setAdmin(_ userID: String, _ isAdmin: Bool, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE users SET is_admin = \(bind: isAdmin) WHERE id = \(bind: userID)").run()
    }

    package static func user(from row: any SQLRow, prefix: String = "") throws -> User {
        User(
            id: try row.decode(column: prefix + "id", as: String.self),
            email: try row.decode(column: prefix + "email", as: String.self),
            name: try row.decode(column: prefix + "name", as: String.self),
            isAdmin: try row.decode(column: prefix + "is_admin", as: Bool.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: prefix + "created_at", as: Int64.self)),
            username: try row.decode(column: prefix + "username", as: String?.self),
            appearance: try row.decode(column: prefix + "appearance", as: String?.self).flatMap(Appearance.init(rawValue:)),
            timeZone: try row.decode(column: prefix + "time_zone", as: String?.self)
        )
    }
}
