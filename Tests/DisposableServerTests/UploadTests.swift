import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Uploading (UP-1, UP-2, UP-5, UP-6, UP-7)")
struct UploadTests {
    /// An organizer, a live event and a guest of it.
    struct Fixture {
        let organizer: String
        let event: String
        let guest: String
    }

    static func fixture(_ app: TestApp, _ settings: [String: Any] = [:]) async throws -> Fixture {
        let organizer = try await app.userToken()
        let event = try await app.createEvent(token: organizer, settings)
        let guest = try await app.guestToken(code: event["code"] as! String)
        return Fixture(organizer: organizer, event: event["id"] as! String, guest: guest)
    }

    @Test("50 parallel uploads by one guest with k shots left: exactly k accepted", arguments: TestEngine.allCases)
    func shotLimitUnderConcurrency(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await Self.fixture(app, ["shotsPerGuest": 7])
            // setup: 2 shots already taken, so k = 5
            let base = try await TestImages.jpeg(width: 96, height: 64)
            for index in 0..<2 {
                #expect(try await app.upload(base + Data("taken \(index)".utf8), event: f.event, token: f.guest).status == .created)
            }
            // MUT: 50 different photos at once (a valid JPEG followed by distinct bytes has a distinct hash)
            let responses = try await withThrowingTaskGroup(of: APIResponse.self) { group in
                for index in 0..<50 {
                    group.addTask { try await app.upload(base + Data("parallel \(index)".utf8), event: f.event, token: f.guest) }
                }
                return try await group.reduce(into: [APIResponse]()) { $0.append($1) }
            }
            // validate (the answers other than 201 and 403 are printed on a failure: they say why)
            let unexpected = responses.filter { $0.status != .created && $0.status != .forbidden }.map { "\($0.status.code) \($0.text)" }
            #expect(responses.filter { $0.status == .created }.count == 5, "\(unexpected)")
            let refused = responses.filter { $0.status == .forbidden }
            #expect(refused.count == 45, "\(unexpected)")
            #expect(refused.allSatisfy { $0.string("type")?.hasSuffix("shot-limit-reached") == true }, "\(refused.map(\.text))")
            let me = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((me["guest"] as? [String: Any])?["shotsLeft"] as? Int == 0)
            let mine = try await app.call(.get, "/api/v1/events/\(f.event)/photos?mine=true", token: f.guest)
            #expect((mine["items"] as? [Any])?.count == 7)
            #expect(app.storedFiles().filter { $0.hasSuffix("/original") }.count == 7, "refused uploads leave no file")
        }
    }

    @Test("A retry with the same Idempotency-Key returns the same photo and never takes a second shot", arguments: TestEngine.allCases)
    func idempotentRetries(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await Self.fixture(app, ["shotsPerGuest": 3])
            let photo = try await TestImages.jpeg()
            let first = try await app.upload(photo, event: f.event, token: f.guest, key: "client-id-1")
            #expect(first.status == .created)
            // Parallel and sequential retries of the same shot.
            let retries = try await withThrowingTaskGroup(of: APIResponse.self) { group in
                for _ in 0..<5 { group.addTask { try await app.upload(photo, event: f.event, token: f.guest, key: "client-id-1") } }
                return try await group.reduce(into: [APIResponse]()) { $0.append($1) }
            }
            #expect(retries.allSatisfy { $0.status == .ok && $0.string("id") == first.string("id") })
            let me = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((me["guest"] as? [String: Any])?["shotsUsed"] as? Int == 1)

            // Deleting does not give the shot back: it is film.
            #expect(try await app.call(.delete, "/api/v1/photos/\(first.string("id")!)", token: f.guest).status == .noContent)
            let after = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((after["guest"] as? [String: Any])?["shotsLeft"] as? Int == 2)
        }
    }

    @Test(
        "The same content twice in an event is 409 “Media already exists”, with the existing id for its sender only", arguments: TestEngine.allCases)
    func duplicates(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await Self.fixture(app)
            let photo = try await TestImages.jpeg()
            let first = try await app.upload(photo, event: f.event, token: f.guest)
            let again = try await app.upload(photo, event: f.event, token: f.guest)
            #expect(again.expectProblem(.conflict).contains("Media already exists"))
            #expect(again.string("existingId") == first.string("id"))
            // Someone else sending the same bytes learns no id: the photo may be hidden from them.
            let organizers = try await app.upload(photo, event: f.event, token: f.organizer)
            #expect(organizers.expectProblem(.conflict).contains("Media already exists"))
            #expect(organizers.json["existingId"] == nil, "\(organizers.text)")
            let me = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((me["guest"] as? [String: Any])?["shotsUsed"] as? Int == 1)

            // UP-7: ask before sending.
            let hash = try await photo.sha256Hex
            let other = String(repeating: "a", count: 64)
            let check = try await app.call(.post, "/api/v1/events/\(f.event)/photos/check", json: ["sha256": [hash, other]], token: f.guest)
            #expect(check["existing"] as? [String] == [hash])
            #expect(check["missing"] as? [String] == [other])
        }
    }

    @Test("The check by hash tells only about photos the caller may see", arguments: TestEngine.allCases)
    func checkFollowsVisibility(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: a reveal-later event; Ana's photo is hidden from Maggie until the reveal
            let f = try await Self.fixture(app, ["reveal": ["mode": "at-end"], "durationHours": 2])
            let code = try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code"))
            let ana = try await app.guestToken(code: code, name: "Ana")
            let photo = try await TestImages.jpeg(width: 140, height: 100)
            let id = try #require(try await app.upload(photo, event: f.event, token: ana).string("id"))
            _ = try await app.waitUntilProcessed(id, token: ana)
            let hash = try await photo.sha256Hex

            // MUT + validate: the shooter and the organizer see it; another guest learns nothing before the reveal.
            for (token, seen) in [(ana, true), (f.organizer, true), (f.guest, false)] {
                let check = try await app.call(.post, "/api/v1/events/\(f.event)/photos/check", json: ["sha256": [hash]], token: token)
                #expect(check["existing"] as? [String] == (seen ? [hash] : []))
            }
            app.clock.advance(by: 3 * 3600)
            let revealed = try await app.call(.post, "/api/v1/events/\(f.event)/photos/check", json: ["sha256": [hash]], token: f.guest)
            #expect(revealed["existing"] as? [String] == [hash])
        }
    }

    @Test("Library uploads can be refused; shooting only while live", arguments: TestEngine.allCases)
    func rules(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await Self.fixture(app, ["allowLibraryUploads": false, "durationHours": 2])
            let library = try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest, source: "library")
            #expect(library.expectProblem(.forbidden).contains("camera"))
            // Leaving the header out does not get round the rule.
            #expect(try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest).expectProblem(.forbidden).contains("camera"))
            #expect(try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest, source: "camera").status == .created)
            try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest, source: "selfie").expectProblem(.badRequest)

            app.clock.advance(by: 3 * 3600)
            let late = try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest, source: "camera")
            #expect(late.expectProblem(.forbidden).contains("live"))

            let scheduled = try await app.createEvent(token: f.organizer, ["startsAt": formatTime(app.clock.now + 3600)])
            try await app.upload(try await TestImages.jpeg(), event: scheduled["id"] as! String, token: f.organizer).expectProblem(.forbidden)
        }
    }

    @Test("The size limit answers 413 and keeps nothing")
    func sizeLimit() async throws {
        try await TestApp.run(.sqlite, configure: { $0.maxUploadBytes = 100_000 }) { app in
            let f = try await Self.fixture(app)
            let big = try await TestImages.jpeg(width: 1200, height: 900)
            #expect(big.count > 100_000)
            try await app.upload(big, event: f.event, token: f.guest).expectProblem(.contentTooLarge)
            #expect(app.storedFiles().isEmpty)
            let me = try await app.call(.get, "/api/v1/me", token: f.guest)
            #expect((me["guest"] as? [String: Any])?["shotsUsed"] as? Int == 0)
        }
    }

    @Test("The first photo locks the settings (EV-2)")
    func firstPhotoLocksSettings() async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await Self.fixture(app)
            #expect(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer)["settingsLocked"] as? Bool == false)
            _ = try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest)
            #expect(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer)["settingsLocked"] as? Bool == true)
            try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["shotsPerGuest": 5], token: f.organizer).expectProblem(.conflict)
        }
    }
}
