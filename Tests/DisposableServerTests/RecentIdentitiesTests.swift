@testable import DisposableServer
import Foundation
import Hummingbird
import Testing

@Suite("Identities remembered for reads (PERF-2)")
struct RecentIdentitiesTests {
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

            #expect(try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest).status == .ok)
            #expect(try await app.call(.delete, "/api/v1/events/\(f.event)/membership", token: f.guest).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest).expectProblem(.unauthorized)

            #expect(try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.organizer).status == .ok)
            #expect(try await app.call(.delete, "/api/v1/sessions/current", token: f.organizer).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.organizer).expectProblem(.unauthorized)
        }
    }

    @Test("An answer looked up before a write is not kept after it; answers expire")
    func lookupsThatRacedAWriteAreDropped() async throws {
        let guest = Guest(id: "g1", eventID: "e1", userID: nil, name: "Maggie", joinedAt: Date(), leftAt: nil, shotsUsed: 0)
        let recent = RecentIdentities(lifetime: .milliseconds(200))
        let before = recent.identity(for: "token")
        #expect(before.identity == nil)
        recent.forgetAll()  // a write ran while the lookup was in the database
        recent.store(.guest(guest, tokenHash: "h"), for: "token", lookedUpAt: before.generation)
        #expect(recent.identity(for: "token").identity == nil)

        let fresh = recent.identity(for: "token")
        recent.store(.guest(guest, tokenHash: "h"), for: "token", lookedUpAt: fresh.generation)
        #expect(recent.identity(for: "token").identity?.tokenHash == "h")
        try await Task.sleep(for: .milliseconds(300))
        #expect(recent.identity(for: "token").identity == nil)
    }
}
