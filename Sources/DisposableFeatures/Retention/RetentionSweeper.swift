import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Logging
import ServiceLifecycle

/// Deletes events whose retention period is over (RET-1), and finishes deletions a crash cut short: at
/// start-up, before serving, and then every `interval`. Safe on several instances at once and after a crash.
/// It also settles storage writes that never got their row (`PendingWrites`), and forgets sessions and
/// personal links that can no longer be used.
package struct RetentionSweeper: Service {
    package let deletion: EventDeletion
    package let pendingWrites: PendingWrites
    let tokens: AccessTokenRepository
    let guests: GuestRepository
    package let uploads: ResumableUploadService
    /// Its trash is emptied of what has been there 30 days (LIB-2).
    package let library: LibraryService
    package let retention: TimeInterval
    package let clock: any AppClock
    package let logger: Logger
    package let started: StartupGate
    package let interval: Duration

    init(
        deletion: EventDeletion, pendingWrites: PendingWrites, tokens: AccessTokenRepository, guests: GuestRepository,
        uploads: ResumableUploadService, library: LibraryService, retention: TimeInterval, clock: any AppClock, logger: Logger, started: StartupGate,
        interval: Duration
    ) {
        self.deletion = deletion
        self.pendingWrites = pendingWrites
        self.tokens = tokens
        self.guests = guests
        self.uploads = uploads
        self.library = library
        self.retention = retention
        self.clock = clock
        self.logger = logger
        self.started = started
        self.interval = interval
    }

    /// The first sweep runs at start-up, before serving (see `buildApplication`); this is every one after.
    package func run() async throws {
        await runPeriodically(started, logger: logger, every: interval, waitFirst: true, what: "Retention sweep") {
            try await sweep()
            try await pendingWrites.reconcile(atStart: false)
            try await uploads.sweep()
        }
    }

    /// Deletes every expired event, and every event whose deletion was begun; returns how many.
    @discardableResult
    package func sweep() async throws -> Int {
        let due = try await deletion.due(endedBy: clock.now - retention)
        for eventID in due {
            try await deletion.delete(eventID: eventID, reason: .expired)
        }
        if !due.isEmpty { logger.notice("Deleted \(due.count) expired events.") }
        let sessions = try await tokens.purgeExpired()
        let links = try await guests.purgeExpiredLinks(now: clock.now)
        if sessions + links > 0 { logger.info("Forgot \(sessions) expired sessions and \(links) expired personal links.") }
        _ = try await library.purgeExpiredTrash()
        return due.count
    }
}
