import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Logging
import SQLKit
import ServiceLifecycle

/// Emits the changes that only the clock causes (GAL-2 timing): `event-revealed` when a reveal time
/// passes and `event-ended` when an event runs out — even if nothing else happens. Every instance runs
/// it; the guarded UPDATE makes exactly one of them announce each moment.
package struct ClockAnnouncer: Service {
    package let transactions: Transactions
    let events: EventRepository
    package let changes: ChangeHub
    package let clock: any AppClock
    package let started: StartupGate
    package let logger: Logger
    /// How long an event is kept after it ends: the "deleted on …" notice goes out `EventRules.deletionWarning` before.
    package let retention: TimeInterval
    /// How often the clock is read: subscribers hear of a reveal within this much (plus delivery).
    package var interval: Duration = .milliseconds(250)

    init(
        transactions: Transactions, events: EventRepository, changes: ChangeHub, clock: any AppClock, started: StartupGate, logger: Logger,
        retention: TimeInterval, interval: Duration = .milliseconds(250)
    ) {
        self.transactions = transactions
        self.events = events
        self.changes = changes
        self.clock = clock
        self.started = started
        self.logger = logger
        self.retention = retention
        self.interval = interval
    }

    package func run() async throws {
        await runPeriodically(started, logger: logger, every: interval, what: "Announcing reveals and ends") { try await announceDueMoments() }
    }

    package func announceDueMoments() async throws {
        let now = clock.now
        let databaseKind = transactions.kind
        for id in try await events.dueReveals(now: now) {
            try await announce(id, .revealed, now: now) { db in
                try await ChangeLogRepository.append(
                    ChangePayload(kind: .eventRevealed, revealedAt: now), eventID: id, now: now, kindOfDatabase: databaseKind, in: db)
                try await NotificationRepository.toEveryone(.revealed, eventID: id, now: now, in: db)
            }
        }
        for (id, endsAt) in try await events.dueEnds(now: now) {
            try await announce(id, .ended, now: now) { db in
                try await ChangeLogRepository.append(
                    ChangePayload(kind: .eventEnded, endsAt: endsAt), eventID: id, now: now, kindOfDatabase: databaseKind, in: db)
            }
        }
        // CAP-1: once the event has ended and its gallery is open, everyone is told its recap is ready. An event with no
        // photo then is flagged without a notice, so that it is not looked at again four times a second.
        for (id, hasPhotos) in try await events.dueRecaps(now: now) {
            try await announce(id, .recapReady, now: now, notify: false) { db in
                if hasPhotos { try await NotificationRepository.toEveryone(.recap, eventID: id, now: now, in: db) }
            }
        }
        // RET-3: a few days before everything goes, everyone in the event is told when (once per event).
        for id in try await events.dueDeletionWarnings(now: now, endedFor: retention - EventRules.deletionWarning) {
            try await announce(id, .deletionWarned, now: now, notify: false) { db in
                try await NotificationRepository.toEveryone(.endingSoon, eventID: id, now: now, in: db)
            }
        }
    }

    /// Marks the moment and logs the change in one transaction — only if this instance is the one that marked it.
    private func announce(
        _ eventID: String, _ moment: EventRepository.Moment, now: Date, notify: Bool = true,
        log: @escaping @Sendable (any SQLDatabase) async throws -> Void
    ) async throws {
        let announced = try await transactions.transaction { db in
            guard try await EventRepository.markAnnounced(moment, eventID: eventID, in: db) else { return false }
            try await log(db)
            return true
        }
        if announced && notify { await changes.refresh(eventID) }
    }
}
