import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// ORG-3: the organizer removes a guest — signed out at once, place freed — with or without their
/// photos.
@Suite("Removing a guest (ORG-3)")
struct GuestRemovalTests {
    @Test("A removed guest is signed out, their stream ends, and their photos go only when asked", arguments: TestEngine.allCases)
    func removeGuest(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["maxGuests": 2])
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            let ana = try await app.guestToken(code: code, name: "Ana")
            let ben = try await app.guestToken(code: code, name: "Ben")
            func upload(_ token: String, width: Int) async throws -> String {
                let photo = try #require(
                    try await app.upload(try await TestImages.jpeg(width: width, height: 200), event: id, token: token).string("id"))
                _ = try await app.waitUntilProcessed(photo, token: token)
                return photo
            }
            let anaPhotos = [try await upload(ana, width: 300), try await upload(ana, width: 301)]
            let benPhoto = try await upload(ben, width: 302)

            let list = try await app.call(.get, "/api/v1/events/\(id)/guests", token: organizer)
            let items = Dictionary(uniqueKeysWithValues: (list["items"] as? [[String: Any]] ?? []).map { ($0["name"] as! String, $0) })
            #expect(items.mapValues { $0["photos"] as? Int } == ["Ana": 2, "Ben": 1])
            let (anaID, benID) = (try #require(items["Ana"]?["id"] as? String), try #require(items["Ben"]?["id"] as? String))

            // Ben goes, his photo stays; his live stream ends within seconds, his token is refused.
            let benFeed = try await app.subscribe(event: id, token: ben)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/guests/\(benID)", token: organizer).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(id)/photos", token: ben).expectProblem(.unauthorized)
            let deadline = ContinuousClock.now + .seconds(60)
            while !benFeed.ended && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            #expect(benFeed.ended, "the removed guest's live stream ends")
            #expect(try await app.call(.get, "/api/v1/photos/\(benPhoto)", token: organizer).status == .ok)
            // His place is free again (the event holds 2).
            _ = try await app.guestToken(code: code, name: "Cleo")

            // Ana goes with her photos: gone for everyone, files and all, announced on the feed.
            let organizerFeed = try await app.subscribe(event: id, token: organizer)
            let filesBefore = app.storedFiles()
            try await app.call(.delete, "/api/v1/events/\(id)/guests/\(anaID)?photos=maybe", token: organizer).expectProblem(.unprocessableContent)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/guests/\(anaID)?photos=true", token: organizer).status == .noContent)
            for photo in anaPhotos {
                try await app.call(.get, "/api/v1/photos/\(photo)", token: organizer).expectProblem(.notFound)
            }
            let removed = try await organizerFeed.next(2)
            #expect(Set(removed.map { $0.name }) == ["photo-removed"])
            #expect(Set(removed.compactMap { $0.json["photoId"] as? String }) == Set(anaPhotos))
            let deadlineFiles = ContinuousClock.now + .seconds(30)
            while app.storedFiles().count > filesBefore.count - 6 && ContinuousClock.now < deadlineFiles {
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(app.storedFiles().count == filesBefore.count - 6, "an original and two derivatives per photo")
            let after = try await app.call(.get, "/api/v1/events/\(id)/guests", token: organizer)
            #expect((after["items"] as? [[String: Any]] ?? []).map { $0["name"] as? String } == ["Cleo"])

            // Twice, or someone of another event, or made-up ids: 404 and nothing else happens.
            try await app.call(.delete, "/api/v1/events/\(id)/guests/\(anaID)", token: organizer).expectProblem(.notFound)
            let other = try await app.createEvent(token: try await app.userToken())
            let stranger = try await app.guestToken(code: other["code"] as! String, name: "Stranger")
            let strangerID = try #require((try await app.call(.get, "/api/v1/me", token: stranger)["guest"] as? [String: Any])?["id"] as? String)
            try await app.call(.delete, "/api/v1/events/\(id)/guests/\(strangerID)", token: organizer).expectProblem(.notFound)
            #expect(try await app.call(.get, "/api/v1/me", token: stranger).status == .ok)
            for made in [String(repeating: "a", count: 5000), "..%2F..%2Fetc", "%27%20OR%201%3D1--"] {
                try await app.call(.delete, "/api/v1/events/\(id)/guests/\(made)", token: organizer).expectProblem(.notFound)
            }
        }
    }

    @Test("The event page lists the guests and removes one with their photos, in the organizer's language")
    func removeFromThePage() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code, name: "Maggie <b>")
            let photo = try #require(try await app.upload(try await TestImages.jpeg(width: 300, height: 200), event: id, token: maggie).string("id"))
            _ = try await app.waitUntilProcessed(photo, token: maggie)
            let guestID = try #require((try await app.call(.get, "/api/v1/me", token: maggie)["guest"] as? [String: Any])?["id"] as? String)

            let page = try await app.page(.get, "/events/\(id)", cookie: organizer, headers: [.acceptLanguage: "fr"])
            #expect(page.text.contains("Maggie &lt;b&gt;") && !page.text.contains("Maggie <b>"))
            #expect(page.text.contains("1 photo") && page.text.contains("Retirer de l"))
            let removed = try await app.page(.post, "/events/\(id)/guests/\(guestID)/remove", cookie: organizer, form: "photos=true")
            #expect(removed.status == .seeOther && removed.headers[.location] == "/events/\(id)?removed=1#guests")
            try await app.call(.get, "/api/v1/photos/\(photo)", token: organizer).expectProblem(.notFound)
            let after = try await app.page(.get, "/events/\(id)?removed=1", cookie: organizer)
            #expect(after.text.contains("The guest was removed.") && after.text.contains("No one has joined yet."))
        }
    }
}
