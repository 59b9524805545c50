import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// CAP-1: an event's recap through HTTP — chosen without copies, waiting for the end for guests, previewed by the
/// organizer, its collage a real JPEG, everyone told when it is ready, and gone with the event.
@Suite("Event recap (CAP-1)")
struct RecapTests {
    /// The collage at `url`: a real JPEG 1080 px wide, three squares of ~350 px side by side under the title (wider than
    /// tall); asked again with its ETag (by `again`), 304.
    static func expectThreeSquareCollage(_ app: TestApp, _ url: String, token: String, again: String) async throws {
        let collage = try await app.call(.get, url, token: token, headers: [.acceptLanguage: "fr-FR"])
        #expect(collage.status == .ok && collage.headers[.contentType] == "image/jpeg", "\(collage.text.prefix(200))")
        let file = try writeTemporaryFile(Data(buffer: collage.body), suffix: ".jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        let header = try await VipsImageProcessor().probe(file.path, format: .jpeg)
        #expect(header.width == 1080 && header.height > 400 && header.height < 700, "\(header.width)×\(header.height)")
        let etag = try #require(collage.headers[.eTag])
        #expect(try await app.call(.get, url, token: again, headers: [.acceptLanguage: "fr-FR", .ifNoneMatch: etag]).status == .notModified)
    }

    @Test("Guests wait for the end, the organizer previews; the recap keeps one of each copy; the collage decodes", arguments: TestEngine.allCases)
    func recap(engine: TestEngine) async throws {
        let folder = try SelectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestApp.run(engine) { app in
            // setup: three guests; the cake twice (the second a re-encoded copy), the dance sharp and blurred, the toast
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["durationHours": 24])
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let ana = try await app.guestToken(code: code, name: "Ana")
            let ben = try await app.guestToken(code: code, name: "Ben")
            let cleo = try await app.guestToken(code: code, name: "Cleo")
            let cake = try await SelectionTests.scene(21, in: folder)
            let dance = try await SelectionTests.scene(22, in: folder)
            let shots: [(String, URL, String)] = [
                ("cake", cake, ana),
                ("cake-copy", try await SelectionTests.variant(cake, "copy", "copy", quality: 40), ben),
                ("dance-blurred", try await SelectionTests.variant(dance, "blurred", "gaussblur", ["2.5"]), cleo),
                ("dance", dance, ben),
                ("toast", try await SelectionTests.scene(23, in: folder), cleo),
            ]
            var ids: [String: String] = [:]
            for (name, file, token) in shots {
                app.clock.advance(by: 600)  // ten minutes apart: no burst
                let uploaded = try await app.upload(try Data(contentsOf: file), event: eventID, token: token)
                let id = try #require(uploaded.string("id"), "\(uploaded.text)")
                #expect(try await app.waitUntilProcessed(id, token: token).string("status") == "ready")
                ids[name] = id
            }
            let recap = "/api/v1/events/\(eventID)/recap"

            // MUT + validate: before the end a guest waits, with nothing to see
            let waiting = try await app.call(.get, recap, token: ana)
            #expect(waiting.string("status") == "waiting" && (waiting["photos"] as? [Any])?.isEmpty == true, "\(waiting.text)")
            #expect(waiting["collageURL"] == nil)
            try await app.call(.get, "\(recap)/collage.jpg", token: ana).expectProblem(.notFound)

            // the organizer previews: one cake, the sharp dance, the toast
            let preview = try await app.call(.get, recap, token: organizer)
            #expect(preview.string("status") == "preview", "\(preview.text)")
            let chosen = Set(((preview["photos"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            #expect(chosen.count == 3 && chosen.contains(ids["dance"]!) && chosen.contains(ids["toast"]!), "\(chosen) of \(ids)")
            #expect(chosen.intersection([ids["cake"]!, ids["cake-copy"]!]).count == 1)

            // the event ends: everyone is told once, and sees the same recap
            app.clock.advance(by: 2 * 86_400)
            let announcer = NotificationTests.announcer(app)
            try await announcer.announceDueMoments()
            try await announcer.announceDueMoments()
            for token in [ana, ben, cleo, organizer] {
                let kinds = GuestbookTests.items(try await NotificationTests.page(app, token)).map { $0["kind"] as? String }
                #expect(kinds.filter { $0 == "recap" }.count == 1, "\(kinds)")
            }
            let ready = try await app.call(.get, recap, token: cleo)
            #expect(ready.string("status") == "ready", "\(ready.text)")
            let photos = (ready["photos"] as? [[String: Any]]) ?? []
            #expect(Set(photos.compactMap { $0["id"] as? String }) == chosen)
            let times = photos.compactMap { $0["takenAt"] as? String }
            #expect(times == times.sorted() && times.count == 3, "in the order they were taken")

            // the collage: a real JPEG, 1080 px wide, a row of three squares under a title; cached by its ETag
            let collageURL = try #require(ready.string("collageURL"))
            try await Self.expectThreeSquareCollage(app, collageURL, token: cleo, again: ana)
            #expect(app.storedFiles().contains { $0.hasPrefix("events/\(eventID)/recap/collage-") })

            // hostile input: counts out of range, a stranger, no session
            for count in ["0", "25", "many", "-1"] {
                try await app.call(.get, "\(recap)?count=\(count)", token: ana).expectProblem(.unprocessableContent)
            }
            let stranger = try await app.guestToken(code: try await app.createEvent(token: try await app.userToken())["code"] as! String)
            try await app.call(.get, recap, token: stranger).expectProblem(.notFound)
            try await app.call(.get, "\(recap)/collage.jpg", token: stranger).expectProblem(.notFound)
            try await app.call(.get, recap).expectProblem(.unauthorized)

            // fewer asked: the best two, still never the two cakes
            let two = try await app.call(.get, "\(recap)?count=2", token: ana)
            #expect((two["photos"] as? [Any])?.count == 2)

            // deleted with the event
            #expect(try await app.call(.delete, "/api/v1/events/\(eventID)", token: organizer).status == .noContent)
            try await expectEventually { !app.storedFiles().contains { $0.hasPrefix("events/\(eventID)/") } }
        }
    }

    @Test("A name with markup is drawn as text, and a photo waiting for approval never shows", arguments: [TestEngine.sqlite])
    func hostileNameAndHiddenPhotos(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(
                token: organizer, ["name": "Ana & Ben <b>wedding</b> </span>", "requireApproval": true])
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let guest = try await app.guestToken(code: code)
            let hidden = try #require(
                try await app.upload(try await TestImages.jpeg(width: 640, height: 480), event: eventID, token: guest).string("id"))
            _ = try await app.waitUntilProcessed(hidden, token: guest)
            let shown = try #require(
                try await app.upload(try await TestImages.jpeg(width: 480, height: 640), event: eventID, token: organizer).string("id"))
            _ = try await app.waitUntilProcessed(shown, token: organizer)

            let preview = try await app.call(.get, "/api/v1/events/\(eventID)/recap", token: organizer)
            #expect(((preview["photos"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == [shown], "\(preview.text)")
            let collage = try await app.call(.get, "/api/v1/events/\(eventID)/recap/collage.jpg", token: organizer)
            #expect(collage.status == .ok && collage.headers[.contentType] == "image/jpeg", "\(collage.text.prefix(300))")
        }
    }
}
