import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Streams per token, and streams that end with their token.
@Suite("Live stream limits")
struct LiveStreamLimitsTests {
    @Test("A made-up Last-Event-ID is clamped: that stream resumes from now, and the others idle", arguments: TestEngine.allCases)
    func clampedResume(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let f = try await UploadTests.fixture(app)
            let hostile = try await app.subscribe(event: f.event, token: f.guest, lastEventID: Int64.max)
            let other = try await app.subscribe(event: f.event, token: f.organizer)
            _ = try await hostile.next(timeout: .milliseconds(300))
            // A stream waiting for news, for two seconds: it wakes for the periodic checks, not in a loop.
            let latest = try await app.services.changes.latest(f.event)
            let started = ContinuousClock.now
            var wakeUps = 0
            while ContinuousClock.now - started < .seconds(2) {
                await app.services.changes.wait(f.event, after: latest, timeout: .seconds(1))
                wakeUps += 1
            }
            #expect(wakeUps < 10, "\(wakeUps) wake-ups in two seconds: the streams would spin")
            try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["name": "News"], token: f.organizer)
            #expect(try await hostile.next()?.name == "event-updated")
            #expect(try await other.next()?.name == "event-updated")
        }
    }

    @Test("A stream ends soon after its guest leaves, and sends nothing more", arguments: TestEngine.allCases)
    func endsWithToken(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let f = try await UploadTests.fixture(app)
            let stream = try await app.subscribe(event: f.event, token: f.guest)
            #expect(try await app.call(.delete, "/api/v1/events/\(f.event)/membership", token: f.guest).status == .noContent)
            try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["name": "After leaving"], token: f.organizer)
            let deadline = ContinuousClock.now + EventStream.recheck * 3
            var received: [String] = []
            while !stream.ended && ContinuousClock.now < deadline {
                if let event = try await stream.next(timeout: .milliseconds(200)), let name = event.name { received.append(name) }
            }
            #expect(stream.ended)
            // What was already under way may arrive before the check; nothing after the stream ended.
            #expect(received.count <= 1)
        }
    }

    @Test("One token holds a bounded number of live streams")
    func streamsPerToken() async throws {
        try await TestApp.run(.sqlite, live: true, configure: { $0.connections.liveStreamsPerToken = 3 }) { app in
            let f = try await UploadTests.fixture(app)
            var streams: [SSEClient] = []
            for _ in 0..<3 { streams.append(try await app.subscribe(event: f.event, token: f.guest)) }
            #expect(streams.allSatisfy { $0.status == 200 })
            let refused = try await app.subscribe(event: f.event, token: f.guest)
            #expect(refused.status == 429)
            #expect(try await app.subscribe(event: f.event, token: f.organizer).status == 200)
            #expect(app.services.liveStreams.count(for: SecretToken.hash(f.guest)) == 3)
        }
    }
}
