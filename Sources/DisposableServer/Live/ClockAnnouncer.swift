import Foundation
import ServiceLifecycle
import SQLKit

/// Emits the changes that only the clock causes (GAL-2 timing): `event-revealed` when a reveal time
/// passes and `event-ended` when an event runs out — even if nothing else happens. Every instance runs
/// it; the guarded UPDATE makes exactly one of them announce each moment.
struct ClockAnnouncer: Service {
    let services: AppServices
    /// How often the clock is read: subscribers hear of a reveal within this much (plus delivery).
    let interval: Duration

    init(services: AppServices, interval: Duration = .milliseconds(250)) {
        self.services = services
        self.interval = interval
    }

    func run() async throws {
        await runPeriodically(services, every: interval, what: "Announcing reveals and ends") { try await announceDueMoments() }
    }

    func announceDueMoments() async throws {
        let now = services.clock.now
        let nowMS = now.millisecondsSince1970
        let databaseKind = services.database.kind
        let dueReveals = try await services.database.sql { db in
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
                try await ChangeLog.append(.eventRevealed, eventID: id, payload: EventRevealedChange(revealedAt: now), now: now, kindOfDatabase: databaseKind, in: db)
            }
        }
        let dueEnds = try await services.database.sql { db in
            try await db.raw("SELECT id, ends_at FROM events WHERE end_announced = \(bind: false) AND ends_at <= \(bind: nowMS)")
                .all().map { (try $0.decode(column: "id", as: String.self), Date(millisecondsSince1970: try $0.decode(column: "ends_at", as: Int64.self))) }
        }
        for (id, endsAt) in dueEnds {
            try await announce(id, flag: "end_announced", now: now) { db in
                try await ChangeLog.append(.eventEnded, eventID: id, payload: EventEndedChange(endsAt: endsAt), now: now, kindOfDatabase: databaseKind, in: db)
            }
        }
    }

    /// Sets the flag and logs the change in one transaction — only if this instance is the one that set it.
    private func announce(_ eventID: String, flag: String, now: Date, log: @escaping @Sendable (any SQLDatabase) async throws -> Void) async throws {
        let announced = try await services.database.transaction { db in
            guard
                try await db.raw(
                    "UPDATE events SET \(unsafeRaw: flag) = \(bind: true) WHERE id = \(bind: eventID) AND \(unsafeRaw: flag) = \(bind: false) RETURNING id"
                ).first() != nil
            else { return false }
            try await log(db)
            return true
        }
        if announced { await services.changes.refresh(eventID) }
    }
}
