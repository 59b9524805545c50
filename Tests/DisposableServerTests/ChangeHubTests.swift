import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

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
            // A plain sleep of the same length beside each wait: in a loaded test run the whole pool can be late by
            // seconds, and a wait is then late with it — what must not happen is a wait late on its own.
            func slept(_ duration: Duration) async -> Duration {
                let start = ContinuousClock.now
                try? await Task.sleep(for: duration)
                return ContinuousClock.now - start
            }
            // A long wait first, then a short one that must not wait for the long one's deadline.
            async let long = timed(.seconds(3))
            async let longSleep = slept(.seconds(3))
            try await Task.sleep(for: .milliseconds(50))
            async let shortSleep = slept(.milliseconds(300))
            let short = await timed(.milliseconds(300))
            let shortReference = await shortSleep
            #expect(short >= .milliseconds(190) && short < shortReference + .milliseconds(1_500), "\(short), a sleep \(shortReference)")
            let waitedLong = await long
            let longReference = await longSleep
            #expect(
                waitedLong >= .milliseconds(2_890) && waitedLong < longReference + .milliseconds(1_500), "\(waitedLong), a sleep \(longReference)")

            // Woken by news long before its timeout.
            async let woken = timed(.seconds(30))
            try await Task.sleep(for: .milliseconds(100))
            await hub.refresh(event)
            #expect(await woken < .seconds(10), "long before its 30 s timeout")
        }
    }
}
