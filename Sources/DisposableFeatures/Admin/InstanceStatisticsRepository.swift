import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The counts behind `InstanceStatistics`, read across every feature's tables.
struct InstanceStatisticsRepository: Sendable {
    package let database: Database

    /// Bytes stored and jobs waiting: what a scrape reads.
    package func storage() async throws -> (storedBytes: Int64, renderQueueDepth: Int) {
        try await database.read { db in (try await Self.storedBytes(db), try await Self.count("SELECT COUNT(*) AS n FROM jobs", db)) }
    }

    package func totals(now: Date, uploadsSince since: Date) async throws -> InstanceStatistics.Totals {
        let now = now.millisecondsSince1970
        let day: Int64 = 86_400_000
        return try await database.read { db in
            let events = InstanceStats.Events(
                upcoming: try await Self.count("SELECT COUNT(*) AS n FROM events WHERE starts_at > \(bind: now)", db),
                live: try await Self.count("SELECT COUNT(*) AS n FROM events WHERE starts_at <= \(bind: now) AND ends_at > \(bind: now)", db),
                ended: try await Self.count("SELECT COUNT(*) AS n FROM events WHERE ends_at <= \(bind: now)", db))
            let days = try await db.raw(
                """
                SELECT uploaded_at / \(literal: day) AS day, COUNT(*) AS n FROM photos
                WHERE uploaded_at >= \(bind: since.millisecondsSince1970) GROUP BY uploaded_at / \(literal: day)
                """
            ).all().reduce(into: [Int64: Int]()) { $0[try $1.decode(column: "day", as: Int64.self)] = try $1.decode(column: "n", as: Int.self) }
            return InstanceStatistics.Totals(
                users: try await Self.count("SELECT COUNT(*) AS n FROM users", db), events: events,
                photos: try await Self.count("SELECT COUNT(*) AS n FROM photos", db),
                renderQueueDepth: try await Self.count("SELECT COUNT(*) AS n FROM jobs", db), storedBytes: try await Self.storedBytes(db),
                uploadsPerDay: days)
        }
    }

    private static func storedBytes(_ db: any SQLDatabase) async throws -> Int64 {
        try await db.raw(
            """
            SELECT CAST(
                (SELECT COALESCE(SUM(used_bytes), 0) FROM users)
                + (SELECT COALESCE(SUM(derivative_bytes), 0) FROM photos WHERE status <> 'failed')
                + (SELECT COALESCE(SUM(derivative_bytes), 0) FROM library_assets WHERE deleted_at IS NULL)
            AS BIGINT) AS n
            """
        ).first()?.decode(column: "n", as: Int64.self) ?? 0
    }

    private static func count(_ sql: SQLQueryString, _ db: any SQLDatabase) async throws -> Int {
        try await db.raw(sql).first()?.decode(column: "n", as: Int.self) ?? 0
    }
}
