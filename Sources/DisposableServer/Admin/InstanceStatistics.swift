import DisposableAPI
import Foundation

/// The instance's numbers, read in one place for the admin panel (ADM-6) and `/metrics` (OPS-2), so the two never
/// disagree. Bytes stored are what accounts are charged for (originals of event photos and of library assets, live
/// photos' videos: the sum of every account's "used") plus the derivatives made of them — so the total is never less
/// than what any account shows as used.
struct InstanceStatistics: Sendable {
    let rows: InstanceStatisticsRepository

    struct Totals: Sendable {
        let users: Int
        let events: InstanceStats.Events
        let photos: Int
        let renderQueueDepth: Int
        let storedBytes: Int64
        /// Photos uploaded per UTC day (days since 1970), from `since`.
        let uploadsPerDay: [Int64: Int]
    }

    /// Bytes stored and jobs waiting: what a scrape reads.
    func storage() async throws -> (storedBytes: Int64, renderQueueDepth: Int) {
        try await rows.storage()
    }

    func totals(now: Date, uploadsSince since: Date) async throws -> Totals {
        try await rows.totals(now: now, uploadsSince: since)
    }
}
