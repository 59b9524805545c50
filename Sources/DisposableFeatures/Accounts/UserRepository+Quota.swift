import DisposableCore
import DisposablePlatform
import SQLKit

/// The quota's bytes on `users` (`Quota` holds the rule): read, charged and given back inside the caller's
/// transaction — the one that records or removes the photo or asset.
extension UserRepository {
    /// The account's allowance in SQL: its own quota, else the instance's default, else the built-in one.
    package static let quotaAllowedSQL = SQLQueryString(
        """
        COALESCE(users.quota_bytes,
            (SELECT CAST(value AS BIGINT) FROM instance_settings WHERE key = 'default_quota_bytes'), \(unsafeRaw: String(Quota.builtInDefault)))
        """)

    package static func usage(userID: String, in db: any SQLDatabase) async throws -> Quota.Usage? {
        guard
            let row = try await db.raw(
                "SELECT used_bytes, quota_bytes, \(quotaAllowedSQL) AS allowed FROM users WHERE id = \(bind: userID)"
            ).first()
        else { return nil }
        return Quota.Usage(
            used: try row.decode(column: "used_bytes", as: Int64.self), allowed: try row.decode(column: "allowed", as: Int64.self),
            own: try row.decode(column: "quota_bytes", as: Int64?.self))
    }

    /// Charges `bytes` to the organizer of `eventID` if they fit; false when they do not.
    package static func chargeQuota(_ bytes: Int64, eventID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE users SET used_bytes = used_bytes + \(bind: bytes)
            WHERE id = (SELECT organizer_id FROM events WHERE id = \(bind: eventID))
                AND used_bytes + \(bind: bytes) <= \(quotaAllowedSQL)
            RETURNING used_bytes
            """
        ).first() != nil
    }

    /// Charges `bytes` to the account itself (its library, LIB-1) if they fit; false when they do not.
    package static func chargeQuota(_ bytes: Int64, userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE users SET used_bytes = used_bytes + \(bind: bytes)
            WHERE id = \(bind: userID) AND used_bytes + \(bind: bytes) <= \(quotaAllowedSQL)
            RETURNING used_bytes
            """
        ).first() != nil
    }

    /// Gives `bytes` back to the account (a library asset deleted for good, or edited into a smaller file).
    package static func releaseQuota(_ bytes: Int64, userID: String, in db: any SQLDatabase) async throws {
        guard bytes > 0 else { return }
        try await db.raw(
            """
            UPDATE users SET used_bytes = CASE WHEN used_bytes > \(bind: bytes) THEN used_bytes - \(bind: bytes) ELSE 0 END
            WHERE id = \(bind: userID)
            """
        ).run()
    }

    /// Gives `bytes` back to the organizer of `eventID` (a photo removed in the same transaction).
    package static func releaseQuota(_ bytes: Int64, eventID: String, in db: any SQLDatabase) async throws {
        guard bytes > 0 else { return }
        try await db.raw(
            """
            UPDATE users SET used_bytes = CASE WHEN used_bytes > \(bind: bytes) THEN used_bytes - \(bind: bytes) ELSE 0 END
            WHERE id = (SELECT organizer_id FROM events WHERE id = \(bind: eventID))
            """
        ).run()
    }
}
