import Foundation
import SQLKit

/// An account's storage quota (ADM-5, P-I-260): the originals of every photo in the events it organizes, and of
/// every asset in its own library (trash included), count against it. Like `ShotLimit`, it is checked before an upload is read (a quick refusal) and charged for good
/// by a guarded UPDATE in the transaction that records the photo, so parallel uploads near the limit can never
/// take the account past it. Removing a photo gives its bytes back in the transaction that removes the row.
enum Quota {
    /// 50 GB, the seed's default, until the admin sets another (`instance_settings.default_quota_bytes`).
    static let builtInDefault: Int64 = 50_000_000_000

    /// What an account uses and may use.
    struct Usage: Sendable, Equatable {
        let used: Int64
        let allowed: Int64
        /// The quota set on the account itself; nil when it follows the instance's default.
        let own: Int64?

        /// Whether `bytes` more still fit.
        func fits(_ bytes: Int64) -> Bool { used + bytes <= allowed }
        /// At or above 90 %: the dashboard warns.
        var nearlyFull: Bool { allowed > 0 && used * 10 >= allowed * 9 }
    }

    /// The account's allowance in SQL: its own quota, else the instance's default, else the built-in one.
    static let allowedSQL = SQLQueryString(
        """
        COALESCE(users.quota_bytes,
            (SELECT CAST(value AS BIGINT) FROM instance_settings WHERE key = 'default_quota_bytes'), \(unsafeRaw: String(builtInDefault)))
        """)

    static func usage(userID: String, in db: any SQLDatabase) async throws -> Usage? {
        guard
            let row = try await db.raw(
                "SELECT used_bytes, quota_bytes, \(allowedSQL) AS allowed FROM users WHERE id = \(bind: userID)"
            ).first()
        else { return nil }
        return Usage(
            used: try row.decode(column: "used_bytes", as: Int64.self), allowed: try row.decode(column: "allowed", as: Int64.self),
            own: try row.decode(column: "quota_bytes", as: Int64?.self))
    }

    /// Charges `bytes` to the organizer of `eventID` if they fit; false when they do not.
    static func charge(_ bytes: Int64, eventID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE users SET used_bytes = used_bytes + \(bind: bytes)
            WHERE id = (SELECT organizer_id FROM events WHERE id = \(bind: eventID))
                AND used_bytes + \(bind: bytes) <= \(allowedSQL)
            RETURNING used_bytes
            """
        ).first() != nil
    }

    /// Charges `bytes` to the account itself (its library, LIB-1) if they fit; false when they do not.
    static func charge(_ bytes: Int64, userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE users SET used_bytes = used_bytes + \(bind: bytes)
            WHERE id = \(bind: userID) AND used_bytes + \(bind: bytes) <= \(allowedSQL)
            RETURNING used_bytes
            """
        ).first() != nil
    }

    /// Gives `bytes` back to the account (a library asset deleted for good, or edited into a smaller file).
    static func release(_ bytes: Int64, userID: String, in db: any SQLDatabase) async throws {
        guard bytes > 0 else { return }
        try await db.raw(
            """
            UPDATE users SET used_bytes = CASE WHEN used_bytes > \(bind: bytes) THEN used_bytes - \(bind: bytes) ELSE 0 END
            WHERE id = \(bind: userID)
            """
        ).run()
    }

    /// Gives `bytes` back to the organizer of `eventID` (a photo removed in the same transaction).
    static func release(_ bytes: Int64, eventID: String, in db: any SQLDatabase) async throws {
        guard bytes > 0 else { return }
        try await db.raw(
            """
            UPDATE users SET used_bytes = CASE WHEN used_bytes > \(bind: bytes) THEN used_bytes - \(bind: bytes) ELSE 0 END
            WHERE id = (SELECT organizer_id FROM events WHERE id = \(bind: eventID))
            """
        ).run()
    }

    /// The refusal: for the organizer, their own numbers; for a guest, whom to ask.
    static func exceeded(_ usage: Usage, byOrganizer: Bool) -> Problem {
        let numbers = "\(format(usage.used)) of the \(format(usage.allowed)) allowed are used"
        return Problem(
            .forbidden, "quota-exceeded", title: "Storage quota reached",
            detail: byOrganizer
                ? "Your storage is full: \(numbers). Delete photos or events, or ask the admin for a larger quota."
                : "This event's storage is full — ask the organizer (\(numbers)).")
    }

    /// "1.2 GB", "350 MB", "12 KB": decimal units, as phones and disks count. French writes "1,2 Go".
    static func format(_ bytes: Int64, french: Bool = false) -> String {
        let units: [(Int64, String, String)] = [
            (1_000_000_000_000, "TB", "To"), (1_000_000_000, "GB", "Go"), (1_000_000, "MB", "Mo"), (1_000, "KB", "Ko"),
        ]
        for (size, unit, frenchUnit) in units where bytes >= size {
            let value = Double(bytes) / Double(size)
            let number = value >= 100 || value == value.rounded() ? "\(Int(value.rounded()))" : String(format: "%.1f", value)
            return french ? number.replacingOccurrences(of: ".", with: ",") + "\u{a0}" + frenchUnit : "\(number) \(unit)"
        }
        return french ? "\(bytes)\u{a0}octets" : "\(bytes) bytes"
    }
}
