import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The moments only the clock brings (`ClockAnnouncer`): which events reached one, and the guarded flag that lets
/// exactly one instance announce each.
extension EventRepository {
    package enum Moment: String, Sendable {
        case revealed = "reveal_announced"
        case ended = "end_announced"
        case recapReady = "recap_announced"
        case deletionWarned = "deletion_warned"
    }

    /// Events whose gallery opened at a set moment (not "now") by `now`, not yet announced.
    package func dueReveals(now: Date) async throws -> [String] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT id FROM events
                WHERE reveal_announced = \(bind: false) AND reveal_mode <> 'now' AND reveals_at <= \(bind: now.millisecondsSince1970)
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Events ended by `now`, not yet announced, with their end.
    package func dueEnds(now: Date) async throws -> [(id: String, endsAt: Date)] {
        try await database.read { db in
            try await db.raw("SELECT id, ends_at FROM events WHERE end_announced = \(bind: false) AND ends_at <= \(bind: now.millisecondsSince1970)")
                .all().map {
                    (try $0.decode(column: "id", as: String.self), Date(millisecondsSince1970: try $0.decode(column: "ends_at", as: Int64.self)))
                }
        }
    }

    /// Ended events whose gallery is open (announced open) and whose recap was not announced, each with whether it has photos for one.
    package func dueRecaps(now: Date) async throws -> [(id: String, hasPhotos: Bool)] {
        try await database.read { db in
            var due: [(String, Bool)] = []
            for id in try await db.raw(
                """
                SELECT id FROM events WHERE recap_announced = \(bind: false) AND ends_at <= \(bind: now.millisecondsSince1970)
                  AND (reveal_mode = 'now' OR reveal_announced = \(bind: true))
                """
            ).all().map({ try $0.decode(column: "id", as: String.self) }) {
                due.append((id, try await PhotoRepository.hasRecapPhotos(eventID: id, in: db)))
            }
            return due
        }
    }

    /// Events ended at least `after` ago whose people were not yet told when it all goes.
    package func dueDeletionWarnings(now: Date, endedFor after: TimeInterval) async throws -> [String] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT id FROM events WHERE deletion_warned = \(bind: false)
                    AND ends_at <= \(bind: (now - after).millisecondsSince1970)
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Marks `moment` announced in the caller's transaction: true only for the one caller that marked it.
    package static func markAnnounced(_ moment: Moment, eventID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE events SET \(unsafeRaw: moment.rawValue) = \(bind: true)
            WHERE id = \(bind: eventID) AND \(unsafeRaw: moment.rawValue) = \(bind: false) RETURNING id
            """
        ).first() != nil
    }
}
