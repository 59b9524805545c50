import DisposableAPI
import Foundation
import Logging
import SQLKit
import ServiceLifecycle

/// Emits the changes that only the clock causes (GAL-2 timing): `event-revealed` when a reveal time
/// passes and `event-ended` when an event runs out — even if nothing else happens. Every instance runs
/// it; the guarded UPDATE makes exactly one of them announce each moment.
struct ClockAnnouncer: Service {
    let database: any DatabaseEngine
    let changes: ChangeHub
    let clock: any AppClock
    let started: StartupGate
    let logger: Logger
    /// How long an event is kept after it ends: the "deleted on …" notice goes out `EventView.deletionWarning` before.
    let retention: TimeInterval
    /// How often the clock is read: subscribers hear of a reveal within this much (plus delivery).
    var interval: Duration = .milliseconds(250)

    func run() async throws {
        await runPeriodically(started, logger: logger, every: interval, what: "Announcing reveals and ends") { try await announceDueMoments() }
    }

    func announceDueMoments() async throws {
        let now = clock.now
        let nowMS = now.millisecondsSince1970
        let databaseKind = database.kind
        let dueReveals = try await database.sql { db in
            try await db.raw(
                """
                SELECT id FROM events
                WHERE reveal_announced = \(bind: false) AND reveal_mode <> 'now'
                  AND (CASE WHEN reveal_mode = 'at' THEN COALESCE(reveal_at, ends_at) ELSE ends_at END) <= \(bind: nowMS)
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
        for id in dueReveals {
            try await announce(id, flag: "reveal_announced", now: now) { db in
                try await ChangeLog.append(
                    ChangePayload(kind: .eventRevealed, revealedAt: now), eventID: id, now: now, kindOfDatabase: databaseKind, in: db)
                try await NotificationRepository.toEveryone(.revealed, eventID: id, now: now, in: db)
            }
        }
        let dueEnds = try await database.sql { db in
            try await db.raw("SELECT id, ends_at FROM events WHERE end_announced = \(bind: false) AND ends_at <= \(bind: nowMS)")
                .all().map {
                    (try $0.decode(column: "id", as: String.self), Date(millisecondsSince1970: try $0.decode(column: "ends_at", as: Int64.self)))
                }
        }
        for (id, endsAt) in dueEnds {
            try await announce(id, flag: "end_announced", now: now) { db in
                try await ChangeLog.append(
                    ChangePayload(kind: .eventEnded, endsAt: endsAt), eventID: id, now: now, kindOfDatabase: databaseKind, in: db)
            }
        }
        // CAP-1: once the event has ended and its gallery is open, everyone is told its recap is ready. An event with no
        // photo then is flagged without a notice, so that it is not looked at again four times a second.
        let dueRecaps = try await database.sql { db in
            var due: [(String, Bool)] = []
            for id in try await db.raw(
                """
                SELECT id FROM events WHERE recap_announced = \(bind: false) AND ends_at <= \(bind: nowMS)
                  AND (reveal_mode = 'now' OR reveal_announced = \(bind: true))
                """
            ).all().map({ try $0.decode(column: "id", as: String.self) }) {
                due.append((id, try await PhotoRepository.hasRecapPhotos(eventID: id, in: db)))
            }
            return due
        }
        for (id, hasPhotos) in dueRecaps {
            try await announce(id, flag: "recap_announced", now: now, notify: false) { db in
                if hasPhotos { try await NotificationRepository.toEveryone(.recap, eventID: id, now: now, in: db) }
            }
        }
        // RET-3: a few days before everything goes, everyone in the event is told when (once per event).
        let warnBefore = Int64((retention - EventView.deletionWarning) * 1000)
        let dueWarnings = try await database.sql { db in
            try await db.raw("SELECT id FROM events WHERE deletion_warned = \(bind: false) AND ends_at + \(bind: warnBefore) <= \(bind: nowMS)")
                .all().map { try $0.decode(column: "id", as: String.self) }
        }
        for id in dueWarnings {
            try await announce(id, flag: "deletion_warned", now: now, notify: false) { db in
                try await NotificationRepository.toEveryone(.endingSoon, eventID: id, now: now, in: db)
            }
        }
    }

    /// Sets the flag and logs the change in one transaction — only if this instance is the one that set it.
    private func announce(
        _ eventID: String, flag: String, now: Date, notify: Bool = true, log: @escaping @Sendable (any SQLDatabase) async throws -> Void
    ) async throws {
        let announced = try await database.transaction { db in
            guard
                try await db.raw(
                    "UPDATE events SET \(unsafeRaw: flag) = \(bind: true) WHERE id = \(bind: eventID) AND \(unsafeRaw: flag) = \(bind: false) RETURNING id"
                ).first() != nil
            else { return false }
            try await log(db)
            return true
        }
        if announced && notify { await changes.refresh(eventID) }
    }
}
