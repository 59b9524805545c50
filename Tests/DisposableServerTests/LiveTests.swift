import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Live updates (LIVE-1, LIVE-3, GAL-2 timing)")
struct LiveTests {
    @Test("Drop the connection, make 10 changes, reconnect with the last id: exactly those 10, in order", arguments: TestEngine.allCases)
    func resume(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let f = try await UploadTests.fixture(app)
            // setup: a subscriber sees one change, then loses its connection
            var stream: SSEClient? = try await app.subscribe(event: f.event, token: f.guest)
            try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["name": "Before the drop"], token: f.organizer)
            let seen = try #require(try await stream?.next())
            #expect(seen.name == "event-updated")
            let lastID = try #require(seen.id)
            stream = nil  // the connection drops
            // MUT: 10 changes while it is away
            for index in 1...10 {
                try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["name": "Name \(index)"], token: f.organizer)
            }
            // validate: it comes back with Last-Event-ID
            let resumed = try await app.subscribe(event: f.event, token: f.guest, lastEventID: lastID)
            let events = try await resumed.next(10)
            #expect(events.compactMap(\.id) == Array((lastID + 1)...(lastID + 10)))
            #expect(events.map { ($0.json["event"] as? [String: Any])?["name"] as? String } == (1...10).map { "Name \($0)" })
            #expect(try await resumed.next(timeout: .milliseconds(500)) == nil, "nothing repeated, nothing extra")
        }
    }

    @Test("A new photo reaches every subscriber: added, then ready", arguments: TestEngine.allCases)
    func newPhotoReachesEveryone(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let f = try await UploadTests.fixture(app)
            let ana = try await app.guestToken(
                code: try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code")), name: "Ana")
            let anaStream = try await app.subscribe(event: f.event, token: ana)
            let organizerStream = try await app.subscribe(event: f.event, token: f.organizer)
            let id = try #require(try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest).string("id"))
            for stream in [anaStream, organizerStream] {
                let events = try await stream.next(2)
                #expect(events.map(\.name) == ["photo-added", "photo-ready"])
                let photo = try #require(events.last?.json["photo"] as? [String: Any])
                #expect(photo["id"] as? String == id)
                #expect(photo["mine"] as? Bool == false)
                #expect((photo["shooter"] as? [String: Any])?["name"] as? String == "Maggie")
            }
        }
    }

    @Test("Reveal later: guests get no photo content before the reveal, then `event-revealed` on time", arguments: TestEngine.allCases)
    func revealOnTime(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let revealAt = app.clock.now + 3600
            let f = try await UploadTests.fixture(app, ["reveal": ["mode": "at", "at": formatTime(revealAt)]])
            let ana = try await app.guestToken(
                code: try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code")), name: "Ana")
            let stream = try await app.subscribe(event: f.event, token: ana)
            let mine = try await app.subscribe(event: f.event, token: f.guest)
            _ = try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest)

            let hidden = try await stream.next(2)
            #expect(hidden.map(\.name) == ["photo-added", "photo-ready"])
            #expect(hidden.allSatisfy { $0.json["photo"] == nil && $0.json["developing"] as? Bool == true })
            #expect(hidden.allSatisfy { !$0.data.contains("Maggie") && !$0.data.contains("/api/v1/photos/") })
            let own = try await mine.next(2)
            #expect(own.allSatisfy { ($0.json["photo"] as? [String: Any])?["mine"] as? Bool == true }, "the shooter sees their own")

            // MUT: the reveal time passes, and nothing else happens
            // (The announcer reads the clock every 250 ms, every second in the tests; how fast it arrives is measured by the
            // benchmark.)
            app.clock.set(revealAt + 1)
            let revealed = try #require(try await stream.next())
            #expect(revealed.name == "event-revealed")
            let gallery = try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: ana)
            #expect((gallery["items"] as? [Any])?.count == 1)
        }
    }

    @Test("The JSON feed pages the same changes with since=N (LIVE-3); heartbeats keep idle streams open", arguments: TestEngine.allCases)
    func jsonFeed(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true, configure: { $0.liveHeartbeat = .milliseconds(300) }) { app in
            let f = try await UploadTests.fixture(app)
            for index in 1...5 { try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["name": "N\(index)"], token: f.organizer) }
            let first = try await app.call(
                .get, "/api/v1/events/\(f.event)/changes?since=0&limit=3", token: f.guest, headers: [.accept: "application/json"])
            #expect((first["items"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [1, 2, 3])
            #expect(first["hasMore"] as? Bool == true)
            let next = try #require(first["next"] as? Int)
            let second = try await app.call(
                .get, "/api/v1/events/\(f.event)/changes?since=\(next)&limit=3", token: f.guest, headers: [.accept: "application/json"])
            #expect((second["items"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [4, 5])
            #expect(second["hasMore"] as? Bool == false)
            #expect(((second["items"] as? [[String: Any]])?.last?["change"] as? [String: Any])?["kind"] as? String == "event-updated")

            // The gallery says where the feed stands, so a client subscribes from there without a gap.
            #expect(try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest)["changeSeq"] as? Int == 5)

            // An idle stream gets heartbeat comments and no event (waiting generously: the suite shares two cores).
            let idle = try await app.subscribe(event: f.event, token: f.guest)
            let deadline = ContinuousClock.now + .seconds(30)
            while !idle.comments.contains(": heartbeat"), ContinuousClock.now < deadline {
                #expect(try await idle.next(timeout: .seconds(1)) == nil)
            }
            #expect(idle.comments.contains(": heartbeat"))
        }
    }

    @Test("Only people of the event may listen")
    func authorization() async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let stranger = try await app.userToken()
            try await app.call(.get, "/api/v1/events/\(f.event)/changes", token: stranger).expectProblem(.notFound)
            try await app.call(.get, "/api/v1/events/\(f.event)/changes").expectProblem(.unauthorized)
            try await app.call(.get, "/api/v1/events/\(f.event)/changes?lastEventId=-3", token: f.guest).expectProblem(.unprocessableContent)
        }
    }
}
