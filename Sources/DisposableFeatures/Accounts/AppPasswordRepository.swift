import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `app_passwords` table: a device's own password for WebDAV, kept as the SHA-256 of its secret.
struct AppPasswordRepository: Sendable {
    package let database: Database

    /// Stores a new one unless the account already has `limit`; false then.
    package func insert(_ password: AppPasswordJSON, userID: String, secretHash: String, limit: Int) async throws -> Bool {
        try await database.transaction { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM app_passwords WHERE user_id = \(bind: userID)").first()!
                .decode(column: "n", as: Int.self)
            guard count < limit else { return false }
            try await db.raw(
                """
                INSERT INTO app_passwords (id, user_id, name, secret_hash, created_at)
                VALUES (\(bind: password.id), \(bind: userID), \(bind: password.name), \(bind: secretHash),
                        \(bind: password.createdAt.millisecondsSince1970))
                """
            ).run()
            return true
        }
    }

    /// The account's app passwords, newest first.
    package func list(userID: String) async throws -> [AppPasswordJSON] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT id, name, created_at, last_used_at, last_used_address FROM app_passwords
                WHERE user_id = \(bind: userID) ORDER BY created_at DESC, id
                """
            ).all().map(Self.password)
        }
    }

    /// Revokes all of the account's, inside the transaction that changes its password.
    package static func revokeAll(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM app_passwords WHERE user_id = \(bind: userID)").run()
    }

    /// Revokes one of the account's; false when it is not theirs.
    package func delete(id: String, userID: String) async throws -> Bool {
        try await database.sql { db in
            try await db.raw("DELETE FROM app_passwords WHERE id = \(bind: id) AND user_id = \(bind: userID) RETURNING id").all().isEmpty == false
        }
    }

    /// The account an app password opens, when `email` is that account's.
    package func find(secretHash: String, email: String) async throws -> (AppPasswordJSON, User)? {
        try await database.read { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT p.id, p.name, p.created_at, p.last_used_at, p.last_used_address,
                           u.id AS u_id, u.email AS u_email, u.name AS u_name, u.is_admin AS u_is_admin, u.created_at AS u_created_at,
                           u.username AS u_username, u.appearance AS u_appearance, u.time_zone AS u_time_zone
                    FROM app_passwords p JOIN users u ON u.id = p.user_id
                    WHERE p.secret_hash = \(bind: secretHash) AND u.email = \(bind: email)
                    """
                ).first()
            else { return nil }
            return (try Self.password(row), try UserRepository.user(from: row, prefix: "u_"))
        }
    }

    package func touch(id: String, at now: Date, address: String) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                UPDATE app_passwords SET last_used_at = \(bind: now.millisecondsSince1970), last_used_address = \(bind: address)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    private static func password(_ row: any SQLRow) throws -> AppPasswordJSON {
        AppPasswordJSON(
            id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            lastUsedAddress: try row.decode(column: "last_used_address", as: String?.self))
    }
}
