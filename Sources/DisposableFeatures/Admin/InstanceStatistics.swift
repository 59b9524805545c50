import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// The instance's numbers, read in one place for the admin panel (ADM-6) and `/metrics` (OPS-2), so the two never
/// disagree. Bytes stored are what accounts are charged for (originals of event photos and of library assets, live
/// photos' videos: the sum of every account's "used") plus the derivatives made of them — so the total is never less
/// than what any account shows as used.
package struct InstanceStatistics: Sendable {
    let rows: InstanceStatisticsRepository

    init(rows: InstanceStatisticsRepository) {
        self.rows = rows
    }

    package struct Totals: Sendable {
        package let users: Int
        package let events: InstanceStats.Events
        package let photos: Int
        package let renderQueueDepth: Int
        package let storedBytes: Int64
        /// Photos uploaded per UTC day (days since 1970), from `since`.
        package let uploadsPerDay: [Int64: Int]
    }

    /// Bytes stored and jobs waiting: what a scrape reads.
    package func storage() async throws -> (storedBytes: Int64, renderQueueDepth: Int) {
        try await rows.storage()
    }

    package func totals(now: Date, uploadsSince since: Date) async throws -> Totals {
        try await rows.totals(now: now, uploadsSince: since)
    }
}
