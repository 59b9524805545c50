import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Registrations waiting for their owner to open the link mailed to them (`pending_sign_ups`). Only the link's
/// hash is stored; an entry lasts a day and works once.
struct PendingSignUpRepository: Sendable {
    package let database: Database

    package func add(tokenHash: String, account: NewAccount, now: Date, expiresAt: Date) async throws {
        try await database.transaction { db in
            // Expired entries go whenever a new one comes, so the table never grows with abandoned sign-ups.
            try await db.raw("DELETE FROM pending_sign_ups WHERE expires_at <= \(bind: now.millisecondsSince1970)").run()
            try await db.raw(
                """
                INSERT INTO pending_sign_ups (token_hash, email, name, password_hash, created_at, expires_at, terms_version)
                VALUES (\(bind: tokenHash), \(bind: account.email), \(bind: account.name), \(bind: account.passwordHash),
                    \(bind: now.millisecondsSince1970), \(bind: expiresAt.millisecondsSince1970), \(bind: account.termsVersion))
                """
            ).run()
        }
    }

    /// Whether a link can still be used.
    package func isValid(tokenHash: String, now: Date) async throws -> Bool {
        try await database.read { db in
            try await db.raw(
                """
                SELECT email FROM pending_sign_ups
                WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.millisecondsSince1970)
                """
            ).first() != nil
        }
    }

    /// Uses a link up: the account it holds, once.
    package func take(tokenHash: String, now: Date) async throws -> NewAccount? {
        try await database.transaction { db in
            guard
                let row = try await db.raw(
                    """
                    DELETE FROM pending_sign_ups
                    WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.millisecondsSince1970)
                    RETURNING email, name, password_hash, terms_version
                    """
                ).first()
            else { return nil }
            return NewAccount(
                email: try row.decode(column: "email", as: String.self), name: try row.decode(column: "name", as: String.self),
                passwordHash: try row.decode(column: "password_hash", as: String.self),
                termsVersion: try row.decode(column: "terms_version", as: String?.self))
        }
    }
}
