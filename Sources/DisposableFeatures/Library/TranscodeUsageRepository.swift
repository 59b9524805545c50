import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `transcode_usage` table: the seconds of library video transcoded per account (`TranscodeBudget` holds the rule).
struct TranscodeUsageRepository: Sendable {
    package let database: Database

    /// Takes `seconds` of the budget at once when they fit — `fits` is told what was used since `since` and when the
    /// oldest of it was — so that two transcodes admitted at the same moment cannot both take what is left: the check
    /// and the record are one transaction, serialized per account (SQLite has one writer; PostgreSQL takes a lock on
    /// the account's key for the transaction). Returns nil when taken, else what `fits` refused with.
    package func reserve(
        _ seconds: Int64, for userID: String, at now: Date, since: Date, forgettingBefore cutoff: Date,
        fits: @escaping @Sendable (_ used: Int64, _ oldest: Date?) -> TimeInterval?
    ) async throws -> TimeInterval? {
        let kind = database.kind
        return try await database.transaction { db in
            if kind == .postgres {
                try await db.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: "transcode:" + userID)))").run()
            }
            let row = try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(seconds), 0) AS BIGINT) AS used, MIN(at) AS oldest FROM transcode_usage
                WHERE user_id = \(bind: userID) AND at > \(bind: since.millisecondsSince1970)
                """
            ).first()
            let used = try row?.decode(column: "used", as: Int64.self) ?? 0
            let oldest = try row?.decode(column: "oldest", as: Int64?.self).map(Date.init(millisecondsSince1970:))
            if let refused = fits(used, oldest) { return refused }
            try await db.raw("DELETE FROM transcode_usage WHERE at < \(bind: cutoff.millisecondsSince1970)").run()
            try await db.raw(
                "INSERT INTO transcode_usage (user_id, at, seconds) VALUES (\(bind: userID), \(bind: now.millisecondsSince1970), \(bind: seconds))"
            ).run()
            return nil
        }
    }
}
