import Crypto
import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Bearer tokens of users and guests. Only their SHA-256 is stored: a leaked database leaks no session.
///
/// A token lives as long as it is used: `lifetime` after its last use it no longer opens anything, and the
/// retention sweep deletes it. The last use is written at most once per `touchEvery`, not with every request.
struct AccessTokenRepository: Sendable {
    package let database: Database
    package let clock: any AppClock
    package let lifetime: TimeInterval
    package static let touchEvery: TimeInterval = 3600

    /// Issues a token for a user or a guest and returns it in clear (the only time it exists in clear).
    package func issue(userID: String? = nil, guestID: String? = nil, device: String? = nil, now: Date, in db: any SQLDatabase) async throws -> String
    {
        let token = SecretToken.generate()
        try await db.raw(
            """
            INSERT INTO access_tokens (token_hash, user_id, guest_id, created_at, last_used_at, device)
            VALUES (\(bind: SecretToken.hash(token)), \(bind: userID), \(bind: guestID), \(bind: now.millisecondsSince1970),
                \(bind: now.millisecondsSince1970), \(bind: device))
            """
        ).run()
        return token
    }

    /// The same as a statement of its own (signing in: one insert needs no transaction).
    package func issue(userID: String, device: String?, now: Date) async throws -> String {
        try await database.sql { db in try await issue(userID: userID, device: device, now: now, in: db) }
    }

    /// Who holds this token, if anyone: one query, since every authenticated request asks.
    package func identity(for token: String) async throws -> Identity? {
        try await identity(hash: SecretToken.hash(token))
    }

    package func identity(hash: String) async throws -> Identity? {
        let now = clock.now
        let (identity, lastUsed): (Identity?, Int64) = try await database.read { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT t.user_id, t.last_used_at,
                           u.id AS u_id, u.email AS u_email, u.name AS u_name, u.is_admin AS u_is_admin, u.created_at AS u_created_at,
                           u.username AS u_username, u.appearance AS u_appearance, u.time_zone AS u_time_zone,
                           g.id AS g_id, g.event_id AS g_event_id, g.user_id AS g_user_id, g.name AS g_name,
                           g.joined_at AS g_joined_at, g.left_at AS g_left_at, g.shots_used AS g_shots_used,
                           g.shots_reserved AS g_shots_reserved
                    FROM access_tokens t LEFT JOIN users u ON u.id = t.user_id LEFT JOIN guests g ON g.id = t.guest_id
                    WHERE t.token_hash = \(bind: hash) AND t.last_used_at > \(bind: (now - lifetime).millisecondsSince1970)
                    """
                ).first()
            else { return (nil, 0) }
            let lastUsed = try row.decode(column: "last_used_at", as: Int64.self)
            if try row.decodeNil(column: "user_id") == false {
                return (.user(try UserRepository.user(from: row, prefix: "u_"), tokenHash: hash), lastUsed)
            }
            guard try row.decodeNil(column: "g_id") == false else { return (nil, 0) }
            let guest = try GuestRepository.guest(from: row, prefix: "g_")
            return (guest.leftAt == nil ? .guest(guest, tokenHash: hash) : nil, lastUsed)
        }
        if identity != nil, lastUsed < (now - Self.touchEvery).millisecondsSince1970 {
            try await database.sql { db in
                try await db.raw("UPDATE access_tokens SET last_used_at = \(bind: now.millisecondsSince1970) WHERE token_hash = \(bind: hash)")
                    .run()
            }
        }
        return identity
    }

    /// Deletes tokens unused for longer than their lifetime; returns how many.
    package func purgeExpired() async throws -> Int {
        let cutoff = (clock.now - lifetime).millisecondsSince1970
        return try await database.sql { db in
            try await db.raw("DELETE FROM access_tokens WHERE last_used_at <= \(bind: cutoff) RETURNING token_hash").all().count
        }
    }

    /// An account's sessions still in use, the most recently used first.
    package func sessions(userID: String) async throws -> [(hash: String, device: String?, createdAt: Date, lastUsedAt: Date)] {
        let cutoff = (clock.now - lifetime).millisecondsSince1970
        return try await database.read { db in
            try await db.raw(
                """
                SELECT token_hash, device, created_at, last_used_at FROM access_tokens
                WHERE user_id = \(bind: userID) AND last_used_at > \(bind: cutoff) ORDER BY last_used_at DESC, created_at DESC
                """
            ).all().map { row in
                (
                    try row.decode(column: "token_hash", as: String.self), try row.decode(column: "device", as: String?.self),
                    Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
                    Date(millisecondsSince1970: try row.decode(column: "last_used_at", as: Int64.self))
                )
            }
        }
    }

    /// The guest a token was issued to, still in the event or gone, while the token lives: a browser that left an
    /// event holds it to come back as the same guest. Removed guests' tokens are deleted.
    package func heldGuestID(token: String) async throws -> String? {
        let cutoff = (clock.now - lifetime).millisecondsSince1970
        return try await database.read { db in
            try await db.raw(
                """
                SELECT guest_id FROM access_tokens
                WHERE token_hash = \(bind: SecretToken.hash(token)) AND guest_id IS NOT NULL AND last_used_at > \(bind: cutoff)
                """
            ).first()?.decode(column: "guest_id", as: String.self)
        }
    }

    package func revoke(hash: String) async throws {
        try await database.sql { db in
            try await db.raw("DELETE FROM access_tokens WHERE token_hash = \(bind: hash)").run()
        }
    }

    /// Ends every session of an account but `keeping` (the one asking), in the caller's transaction.
    package static func endSessions(userID: String, keeping tokenHash: String?, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM access_tokens WHERE user_id = \(bind: userID) AND token_hash <> \(bind: tokenHash ?? "")").run()
    }

    /// Ends every session of a guest but `keeping` (the browser that left sets it aside to come back with).
    package static func endGuestSessions(guestID: String, keeping tokenHash: String?, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM access_tokens WHERE guest_id = \(bind: guestID) AND token_hash <> \(bind: tokenHash ?? "")").run()
    }
}
