import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

@Suite("Identities and events remembered for reads (PERF-2)")
struct RecentReadsTests {
    @Test("A read right after a write sees it: a shot taken, a guest who left, a sign-out", arguments: TestEngine.allCases)
    func writesAreSeenAtOnce(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app, ["shotsPerGuest": 5])
            for _ in 0..<2 {  // the second answer comes from memory
                let me = try await app.call(.get, "/api/v1/me", token: f.guest)
                #expect((me["guest"] as? [String: Any])?["shotsLeft"] as? Int == 5)
            }
            #expect(try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest).status == .created)
            let afterShot = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((afterShot["guest"] as? [String: Any])?["shotsLeft"] as? Int == 4)
            // A resumable upload holds its shot from its creation: that write forgets the shooter's identity too.
            let created = try await app.send(
                "/api/v1/uploads", method: .post,
                headers: [
                    .init("Tus-Resumable")!: "1.0.0", .init("Upload-Length")!: "1000", .authorization: "Bearer \(f.guest)",
                    .init("Upload-Metadata")!: ResumableUploadTests.metadata(["event": f.event, "source": "camera"]),
                ], body: nil)
            #expect(created.status == .created, "\(created.text)")
            let afterCreation = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((afterCreation["guest"] as? [String: Any])?["shotsLeft"] as? Int == 3)

            #expect(try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest).status == .ok)
            #expect(try await app.call(.delete, "/api/v1/events/\(f.event)/membership", token: f.guest).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest).expectProblem(.unauthorized)

            #expect(try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.organizer).status == .ok)
            #expect(try await app.call(.delete, "/api/v1/sessions/current", token: f.organizer).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.organizer).expectProblem(.unauthorized)
        }
    }

    /// No request tells this instance that a photo finished processing: the media workers' news reaches the
    /// `ChangeHub`, which makes the remembered event rows go. (Tests remember for ten minutes, so a row that
    /// is not forgotten keeps the page as it was.)
    @Test("A photo processed in the background is in the next gallery read", arguments: TestEngine.allCases)
    func backgroundChangesAreSeen(engine: TestEngine) async throws {
        // No media workers: the test renders the photo itself, as a worker would, once the gallery was read while it
        // was processing (a photo rendered before that first read — a loaded machine — would prove nothing).
        try await TestApp.run(engine, configure: { $0.mediaWorkers = 0 }) { app in
            let f = try await UploadTests.fixture(app)
            let gallery = "/api/v1/events/\(f.event)/photos"
            let upload = try await app.upload(try await TestImages.jpeg(width: 640, height: 480), event: f.event, token: f.guest)
            #expect(upload.status == .created)
            let statuses = { () async throws -> [String] in
                let page = try await app.call(.get, gallery, token: f.organizer)
                return (page["items"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
            }
            #expect(try await statuses() == [], "read (and remembered) while the photo is processing, so not yet in the gallery")
            let job = try #require(try await app.services.jobs.claim(now: app.clock.now))
            try await app.services.renderer.render(photoID: job.subjectID, jobID: job.id)
            // The worker tells the hub just after its commit: give it a moment, far less than ten minutes.
            let deadline = ContinuousClock.now + .seconds(5)
            var seen = try await statuses()
            while seen != ["ready"], ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                seen = try await statuses()
            }
            #expect(seen == ["ready"])
        }
    }

    /// Tests remember rows for ten minutes: a row neither moved along nor forgotten would keep the page without the photo.
    @Test("A photo shown at once is in its shooter's and everyone's next gallery read; the event's row moves along", arguments: TestEngine.allCases)
    func uploadsMoveTheRememberedRow(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let gallery = "/api/v1/events/\(f.event)/photos"
            let ids = { (token: String) async throws -> Set<String> in
                let page = try await app.call(.get, gallery, token: token)
                return Set((page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            }
            #expect(try await ids(f.guest) == [])
            #expect(try await ids(f.organizer) == [])
            var sent: Set<String> = []
            for index in 0..<3 {
                let photo = try await TestImages.structured(width: 800, height: 600) + Data("shot \(index)".utf8)
                let upload = try await app.uploadForm(photo, firstLook: try await TestImages.firstLook(of: photo), event: f.event, token: f.guest)
                #expect(upload.status == .created && upload.string("status") == "ready", "\(upload.status) \(upload.text)")
                sent.insert(try #require(upload["id"] as? String))
                let (seenByShooter, seenByOrganizer) = (try await ids(f.guest), try await ids(f.organizer))
                #expect(seenByShooter == sent)
                #expect(seenByOrganizer == sent)
            }
            // The row in memory is the one the last upload left, not one read again. On PostgreSQL a commit's own
            // notification may come back before the hub's refresh and is then news (DECISIONS "An instance's own
            // commits, told back by PostgreSQL, are not news"): the row may be read again there, never stale.
            guard engine == .sqlite else { return }
            let latest = try await app.services.changes.latest(f.event)
            let remembered = try await app.services.recentReads.events.answer(for: f.event) {
                Issue.record("the event's row was read again")
                return nil
            }
            #expect(remembered?.changeSeq == latest)
        }
    }

    @Test("A row remembered where a photo's write started moves along with it; a commit told from elsewhere forgets only older rows")
    func onlyTheRowAtTheStartMoves() async throws {
        let recent = RecentReads(lifetime: .seconds(60))
        let lookups = NIOLockedValueBox(0)
        let row = { @Sendable (seq: Int64) async throws -> Event? in
            lookups.withLockedValue { $0 += 1 }
            var event = EventRules.newEvent(by: "u1", now: Date())
            event.changeSeq = seq
            return event
        }
        let remembered = { (seq: Int64) async throws -> Int64? in try await recent.events.answer(for: "e1") { try await row(seq) }?.changeSeq }
        #expect(try await remembered(5) == 5)
        recent.heard(.moved(FeedMove(from: 5, to: 7)), of: "e1")
        #expect(try await remembered(99) == 7)
        #expect(lookups.withLockedValue { $0 } == 1)
        // The same commit told again through PostgreSQL: the row has it.
        recent.heard(.reached(7), of: "e1")
        #expect(try await remembered(99) == 7)
        #expect(lookups.withLockedValue { $0 } == 1)
        // A row read after the write stays.
        recent.heard(.moved(FeedMove(from: 6, to: 7)), of: "e1")
        #expect(try await remembered(99) == 7)
        #expect(lookups.withLockedValue { $0 } == 1)
        // A write from position 8 means something happened at 7 that the row does not show (a setting, perhaps).
        recent.heard(.moved(FeedMove(from: 8, to: 9)), of: "e1")
        #expect(try await remembered(9) == 9)
        #expect(lookups.withLockedValue { $0 } == 2)
        // Another instance's commit past the row.
        recent.heard(.reached(10), of: "e1")
        #expect(try await remembered(10) == 10)
        recent.heard(.changed, of: "e1")
        #expect(try await remembered(11) == 11)
        #expect(lookups.withLockedValue { $0 } == 4)
    }

    @Test("An answer looked up while a write ran is not kept; concurrent misses share one lookup; answers expire")
    func lookupsThatRacedAWriteAreDropped() async throws {
        let guest = Guest(id: "g1", eventID: "e1", userID: nil, name: "Maggie", joinedAt: Date(), leftAt: nil, shotsUsed: 0)
        let recent = RecentAnswers<Identity>(lifetime: .seconds(1))
        let lookups = NIOLockedValueBox(0)
        let writeDuringLookup = NIOLockedValueBox(true)
        let lookUp = { @Sendable () async throws -> Identity? in
            lookups.withLockedValue { $0 += 1 }
            try await Task.sleep(for: .milliseconds(200))
            // The first time, a write runs while the lookup is in the database.
            if writeDuringLookup.withLockedValue({ first in
                defer { first = false }; return first
            }) {
                recent.forgetAll()
            }
            return .guest(guest, tokenHash: "h")
        }

        #expect(try await recent.answer(for: "token", lookUp: lookUp)?.tokenHash == "h")
        _ = try await recent.answer(for: "token", lookUp: lookUp)
        #expect(lookups.withLockedValue { $0 } == 2, "the answer that raced a write was not kept")

        // Kept now; twenty requests arriving together after it expires ask the database once.
        _ = try await recent.answer(for: "token", lookUp: lookUp)
        #expect(lookups.withLockedValue { $0 } == 2)
        try await Task.sleep(for: .milliseconds(1100))
        try await withThrowingTaskGroup(of: Identity?.self) { group in
            for _ in 0..<20 { group.addTask { try await recent.answer(for: "token", lookUp: lookUp) } }
            for try await identity in group { #expect(identity?.tokenHash == "h") }
        }
        #expect(lookups.withLockedValue { $0 } == 3)

        // Forgetting one key (an upload forgets its shooter's identity) drops a lookup of it under way, not others.
        let other = RecentAnswers<Identity>(lifetime: .seconds(60))
        let slow = { @Sendable (key: String) async throws -> Identity? in
            lookups.withLockedValue { $0 += 1 }
            try await Task.sleep(for: .milliseconds(200))
            return .guest(guest, tokenHash: key)
        }
        async let first = other.answer(for: "shooter") { try await slow("shooter") }
        async let second = other.answer(for: "viewer") { try await slow("viewer") }
        try await Task.sleep(for: .milliseconds(50))
        other.forget("shooter")
        _ = try await (first, second)
        let before = lookups.withLockedValue { $0 }
        _ = try await other.answer(for: "viewer") { try await slow("viewer") }
        _ = try await other.answer(for: "shooter") { try await slow("shooter") }
        #expect(lookups.withLockedValue { $0 } == before + 1, "only the forgotten key is asked again")
    }
}
