import Foundation
import SQLKit

/// The `transcode_usage` table: the seconds of library video transcoded per account (`TranscodeBudget` holds the rule).
struct TranscodeUsageRepository: Sendable {
    let database: Database

    /// Seconds transcoded for `userID` after `since`, and when the oldest of them was.
    func used(by userID: String, since: Date) async throws -> (seconds: Int64, oldest: Date?) {
        let row = try await database.read { db in
            try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(seconds), 0) AS BIGINT) AS used, MIN(at) AS oldest FROM transcode_usage
                WHERE user_id = \(bind: userID) AND at > \(bind: since.millisecondsSince1970)
                """
            ).first()
        }
        return (
            try row?.decode(column: "used", as: Int64.self) ?? 0,
            try row?.decode(column: "oldest", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    /// Records a transcode, forgetting those before `forgettingBefore`.
    func record(_ seconds: Int64, for userID: String, at now: Date, forgettingBefore cutoff: Date) async throws {
        try await database.sql { db in
            try await db.raw("DELETE FROM transcode_usage WHERE at < \(bind: cutoff.millisecondsSince1970)").run()
            try await db.raw(
                "INSERT INTO transcode_usage (user_id, at, seconds) VALUES (\(bind: userID), \(bind: now.millisecondsSince1970), \(bind: seconds))"
            ).run()
        }
    }
}
