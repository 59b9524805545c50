import DisposableCore
import DisposablePlatform
import Logging
import ServiceLifecycle

/// What the turn of a month or a year brings each account, where it lives: last month's capsule (CAP-2) and the
/// year's moments recap (CAP-3), each with its notice. Every instance runs it; each release is decided once.
package struct PersonalAnnouncer: Service {
    package let capsules: CapsuleService
    package let moments: MomentService
    package let started: StartupGate
    package let logger: Logger
    /// A capsule comes out within this much after midnight; the query behind it finds nothing most of the month.
    package var interval: Duration = .seconds(15)

    package init(capsules: CapsuleService, moments: MomentService, started: StartupGate, logger: Logger, interval: Duration = .seconds(15)) {
        self.capsules = capsules
        self.moments = moments
        self.started = started
        self.logger = logger
        self.interval = interval
    }

    package func run() async throws {
        // Not at once: a server starting has enough to do, and this can wait a few seconds.
        await runPeriodically(started, logger: logger, every: interval, waitFirst: true, what: "Releasing capsules") {
            try await capsules.releaseDue()
            try await moments.announceYearsDue(bell: capsules.bell)
        }
    }
}
