import Foundation
import Testing

@testable import DisposableServer

/// Streams wait on the hub between changes: woken by a change at once, or let go after their timeout so that they
/// send a heartbeat and look at the database.
@Suite("Live streams' waits (LIVE-1)")
struct ChangeHubTests {
    @Test("A wait ends at its timeout, a shorter one after a longer one too, and at once when a change comes")
    func waitsEnd() async throws {
        try await TestApp.run(.sqlite) { app in
            let hub = app.services.changes
            let event = "event-without-changes"
            await hub.follow(event, from: 0)
            func timed(_ timeout: Duration) async -> Duration {
                let start = ContinuousClock.now
                await hub.wait(event, after: 0, timeout: timeout)
                return ContinuousClock.now - start
            }
            // A long wait first, then a short one that must not wait for the long one's deadline.
            async let long = timed(.seconds(3))
            try await Task.sleep(for: .milliseconds(50))
            let short = await timed(.milliseconds(300))
            #expect(short >= .milliseconds(190) && short < .seconds(2), "\(short)")
            let waitedLong = await long
            #expect(waitedLong >= .milliseconds(2_890) && waitedLong < .seconds(5), "\(waitedLong)")

            // Woken by news long before its timeout.
            async let woken = timed(.seconds(30))
            try await Task.sleep(for: .milliseconds(100))
            await hub.refresh(event)
            #expect(await woken < .seconds(5))
        }
    }
}
