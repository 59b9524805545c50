import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `password_resets` table: one-time links, stored hashed (`PasswordResetService` holds the rules).
struct PasswordResetRepository: Sendable {
    package let database: Database

    package func insert(tokenHash: String, userID: String, now: Date, expiresAt: Date) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO password_resets (token_hash, user_id, created_at, expires_at)
                VALUES (\(bind: tokenHash), \(bind: userID), \(bind: now.millisecondsSince1970), \(bind: expiresAt.millisecondsSince1970))
                """
            ).run()
        }
    }

    /// Whether the link is unused and unexpired at `now`.
    package func isUsable(tokenHash: String, now: Date) async throws -> Bool {
        try await database.read { db in
            try await db.raw(
                """
                SELECT user_id FROM password_resets
                WHERE token_hash = \(bind: tokenHash) AND used_at IS NULL AND expires_at > \(bind: now.millisecondsSince1970)
                """
            ).first() != nil
        }
    }

    /// Uses the link up, sets the account's new password, ends every session of the account and its other links,
    /// in one transaction; false when the link is used or expired.
    package func use(tokenHash: String, newPasswordHash: String, now: Date) async throws -> Bool {
        try await database.transaction { db -> Bool in
            guard
                let row = try await db.raw(
                    """
                    UPDATE password_resets SET used_at = \(bind: now.millisecondsSince1970)
                    WHERE token_hash = \(bind: tokenHash) AND used_at IS NULL AND expires_at > \(bind: now.millisecondsSince1970)
                    RETURNING user_id
                    """
                ).first()
            else { return false }
            let userID = try row.decode(column: "user_id", as: String.self)
            try await UserRepository.setPassword(hash: newPasswordHash, userID: userID, in: db)
            try await AccessTokenRepository.endSessions(userID: userID, keeping: nil, in: db)
            // Whoever made the reset necessary may have made app passwords: they end with the old password.
            try await AppPasswordRepository.revokeAll(userID: userID, in: db)
            try await db.raw("DELETE FROM password_resets WHERE user_id = \(bind: userID) AND used_at IS NULL").run()
            return true
        }
    }
}
