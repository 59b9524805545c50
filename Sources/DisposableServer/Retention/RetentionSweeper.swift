import Foundation
import ServiceLifecycle
import SQLKit

/// Deletes events whose retention period is over (RET-1): at start-up, before serving, and then
/// every `interval`. Safe to run on several instances at once and to re-run after a crash.
struct RetentionSweeper: Service {
    let services: AppServices
    let interval: Duration

    init(services: AppServices, interval: Duration = .seconds(600)) {
        self.services = services
        self.interval = interval
    }

    /// The first sweep runs at start-up, before serving (see `buildApplication`); this is every one after.
    func run() async throws {
        await runPeriodically(services, every: interval, waitFirst: true, what: "Retention sweep") { try await sweep() }
    }

    /// Deletes every expired event; returns how many.
    @discardableResult
    func sweep() async throws -> Int {
        let cutoff = (services.clock.now - services.configuration.retention).millisecondsSince1970
        let expired = try await services.database.sql { db in
            try await db.raw("SELECT id FROM events WHERE ends_at <= \(bind: cutoff)").all().map { try $0.decode(column: "id", as: String.self) }
        }
        for eventID in expired {
            try await EventDeletion(services: services).delete(eventID: eventID, reason: .expired)
        }
        if !expired.isEmpty { services.logger.notice("Deleted \(expired.count) expired events.") }
        return expired.count
    }
}
