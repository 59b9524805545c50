import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// A quiet month still gets a capsule. Fewer photos than the capsule holds: the same month of earlier years
/// fills it ("on this day"); the month's moments are in it; no photo at all but moments: a capsule of those. A month
/// with neither gets none, and no notice — never an empty page.
extension CapsuleRepository {
    /// How many earlier years are looked at for the same month.
    package static let earlierYears = 30

    /// The same month's photos in earlier years: ready, in the library, not videos.
    package static func sameMonthEarlier(userID: String, month: CapsuleMonth, in db: any SQLDatabase) async throws -> [Candidate] {
        let years = (max(1970, month.year - earlierYears)..<month.year).map { CapsuleMonth(year: $0, month: month.month).photoDates }
        guard !years.isEmpty else { return [] }
        let ranges = years.map {
            "(taken_at >= \(bind: $0.lowerBound.millisecondsSince1970) AND taken_at < \(bind: $0.upperBound.millisecondsSince1970))" as SQLQueryString
        }
        let any = ranges.dropFirst().reduce(ranges[0]) { $0 + " OR " + $1 }
        return try await db.raw(
            """
            SELECT * FROM library_assets
            WHERE user_id = \(bind: userID) AND deleted_at IS NULL AND trashed_at IS NULL AND status = 'ready' AND (
            """ + any + ") ORDER BY taken_at, id"
        ).all().map { row in
            Candidate(asset: try LibraryAsset.from(row), signals: PhotoSignals(stored: try row.decode(column: "signals", as: String?.self)))
        }.filter { !$0.asset.format.isVideo }
    }

    /// The moments written during `month` where their owner lives, oldest first.
    package static func moments(userID: String, month: CapsuleMonth, zone: TimeZone, in db: any SQLDatabase) async throws -> [MomentJSON] {
        try await db.raw(
            """
            SELECT id, text, created_at FROM moments
            WHERE user_id = \(bind: userID) AND created_at >= \(bind: month.start(in: zone).millisecondsSince1970)
              AND created_at < \(bind: month.next.start(in: zone).millisecondsSince1970)
            ORDER BY created_at, id
            """
        ).all().map(MomentRepository.moment(from:))
    }

    package func moments(userID: String, month: CapsuleMonth, zone: TimeZone) async throws -> [MomentJSON] {
        try await database.read { db in try await Self.moments(userID: userID, month: month, zone: zone, in: db) }
    }

    /// What an owner may put in the capsule: the month's photos, then the same month's of earlier years.
    package func choices(userID: String, month: CapsuleMonth) async throws -> [Candidate] {
        try await database.read { db in
            try await Self.candidates(userID: userID, month: month, in: db) + Self.sameMonthEarlier(userID: userID, month: month, in: db)
        }
    }

    /// The capsule's photos: the best `count` of the month; when it has fewer, completed with the best of the same
    /// month in earlier years (none a copy of one already in).
    package static func fill(_ count: Int, from month: [Candidate], earlier: [Candidate]) -> [String] {
        Selection.choose(count, from: month.map(\.selection), fallback: earlier.map(\.selection)).map(\.id)
    }
}
