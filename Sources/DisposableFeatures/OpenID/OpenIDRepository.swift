import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `openid_links` and `openid_attempts` tables.
struct OpenIDRepository: Sendable {
    package let database: Database

    package struct Attempt: Sendable {
        package let nonce: String
        package let verifier: String
        /// The account being linked; nil for a sign-in.
        package let userID: String?
        package let next: String
    }

    package struct Link: Sendable {
        package let userID: String
        package let email: String?
        package let linkedAt: Date

        package init(userID: String, email: String?, linkedAt: Date) {
            self.userID = userID
            self.email = email
            self.linkedAt = linkedAt
        }
    }

    /// Keeps an attempt until `expires`, and forgets those whose time is past.
    package func save(_ attempt: Attempt, stateHash: String, expires: Date, now: Date) async throws {
        try await database.sql { db in
            try await db.raw("DELETE FROM openid_attempts WHERE expires_at < \(bind: now.millisecondsSince1970)").run()
            try await db.raw(
                """
                INSERT INTO openid_attempts (state_hash, nonce, verifier, user_id, next, expires_at)
                VALUES (\(bind: stateHash), \(bind: attempt.nonce), \(bind: attempt.verifier), \(bind: attempt.userID), \(bind: attempt.next),
                    \(bind: expires.millisecondsSince1970))
                """
            ).run()
        }
    }

    /// The attempt of this state, taken: a second callback with it finds nothing.
    package func take(stateHash: String, now: Date) async throws -> Attempt? {
        try await database.sql { db in
            guard
                let row = try await db.raw(
                    "DELETE FROM openid_attempts WHERE state_hash = \(bind: stateHash) RETURNING nonce, verifier, user_id, next, expires_at"
                ).first(),
                try row.decode(column: "expires_at", as: Int64.self) >= now.millisecondsSince1970
            else { return nil }
            return Attempt(
                nonce: try row.decode(column: "nonce", as: String.self), verifier: try row.decode(column: "verifier", as: String.self),
                userID: try row.decode(column: "user_id", as: String?.self), next: try row.decode(column: "next", as: String.self))
        }
    }

    /// The account this provider's person signs in to.
    package func account(issuer: String, subject: String) async throws -> String? {
        try await database.read { db in
            try await db.raw("SELECT user_id FROM openid_links WHERE issuer = \(bind: issuer) AND subject = \(bind: subject)").first()?
                .decode(column: "user_id", as: String.self)
        }
    }

    package func link(of userID: String, issuer: String) async throws -> Link? {
        try await database.read { db in
            try await db.raw("SELECT user_id, email, linked_at FROM openid_links WHERE user_id = \(bind: userID) AND issuer = \(bind: issuer)")
                .first().map(Self.link(from:))
        }
    }

    /// Links the account, replacing a link it had with the same provider.
    package func insert(issuer: String, subject: String, userID: String, email: String?, now: Date, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM openid_links WHERE user_id = \(bind: userID) AND issuer = \(bind: issuer)").run()
        try await db.raw(
            """
            INSERT INTO openid_links (issuer, subject, user_id, email, linked_at)
            VALUES (\(bind: issuer), \(bind: subject), \(bind: userID), \(bind: email), \(bind: now.millisecondsSince1970))
            """
        ).run()
    }

    package func delete(userID: String, issuer: String) async throws {
        try await database.sql { db in
            try await db.raw("DELETE FROM openid_links WHERE user_id = \(bind: userID) AND issuer = \(bind: issuer)").run()
        }
    }

    private static func link(from row: any SQLRow) throws -> Link {
        Link(
            userID: try row.decode(column: "user_id", as: String.self), email: try row.decode(column: "email", as: String?.self),
            linkedAt: Date(millisecondsSince1970: try row.decode(column: "linked_at", as: Int64.self)))
    }
}
