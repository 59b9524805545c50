import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SOC-1: a photo's shooter captions it; everyone who may see the photo sees the caption, live — and nobody else.
@Suite("Captions (SOC-1)")
struct CaptionTests {
    static func changes(_ app: TestApp, event: String, token: String) async throws -> [[String: Any]] {
        let page = try await app.call(.get, "/api/v1/events/\(event)/changes?since=0", token: token, headers: [.accept: "application/json"])
        return (page["items"] as? [[String: Any]] ?? []).compactMap { $0["change"] as? [String: Any] }
    }

    @Test(
        "The shooter captions their photo; others see it in the photo, the gallery and the change feed; only the shooter may",
        arguments: TestEngine.allCases)
    func captions(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 3])
            let eventID = try #require(event["id"] as? String)
            let code = try #require(event["code"] as? String)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let tom = try await app.guestToken(code: code, name: "Tom")
            let photoID = try #require(
                try await app.upload(try await TestImages.jpeg(width: 320, height: 240), event: eventID, token: maggie).string("id"))
            _ = try await app.waitUntilProcessed(photoID, token: maggie)

            // MUT: the shooter writes a caption (with markup, kept as typed: pages escape it).
            let words = "First dance <3 <script>alert(1)</script> 💃🏽"
            let captioned = try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "  \(words)  "], token: maggie)
            #expect(captioned.status == .ok, "\(captioned.text)")
            #expect(captioned.string("caption") == words)

            // validate: everyone in the event sees it — the photo, the gallery, the live feed.
            #expect(try await app.call(.get, "/api/v1/photos/\(photoID)", token: tom).string("caption") == words)
            let gallery = try await app.call(.get, "/api/v1/events/\(eventID)/photos", token: organizer)
            #expect((gallery["items"] as? [[String: Any]])?.first?["caption"] as? String == words)
            let updated = try await Self.changes(app, event: eventID, token: tom).last { $0["kind"] as? String == "photo-updated" }
            #expect((updated?["photo"] as? [String: Any])?["caption"] as? String == words)

            // Only the shooter: not another guest, not the organizer, not a stranger; 404 for what does not exist.
            try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "mine now"], token: tom).expectProblem(.forbidden)
            try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "mine now"], token: organizer).expectProblem(.forbidden)
            try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "x"]).expectProblem(.unauthorized)
            try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "x"], token: try await app.userToken())
                .expectProblem(.notFound)
            try await app.call(.patch, "/api/v1/photos/nope", json: ["caption": "x"], token: maggie).expectProblem(.notFound)

            // Hostile input: too long, line breaks and control or direction characters, unknown fields, not JSON.
            for bad in [String(repeating: "é", count: 301), "two\nlines", "bell\u{07}", "\u{202E}txt.exe"] {
                try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": bad], token: maggie).expectProblem(.unprocessableContent)
            }
            try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "x", "approved": true], token: maggie).expectProblem(
                .badRequest)
            try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": 5], token: maggie).expectProblem(.badRequest)
            try await app.call(
                .patch, "/api/v1/photos/\(photoID)", token: maggie, headers: [.contentType: "text/plain"], body: Data("caption".utf8)
            ).expectProblem(.unsupportedMediaType)
            #expect(try await app.call(.get, "/api/v1/photos/\(photoID)", token: tom).string("caption") == words, "refusals change nothing")

            // null (or blanks) removes it.
            let removed = try await app.call(.patch, "/api/v1/photos/\(photoID)", raw: #"{"caption": null}"#, token: maggie)
            #expect(removed.status == .ok && removed["caption"] == nil, "\(removed.text)")
        }
    }

    @Test("A caption on a developing photo stays developing for the others until the reveal", arguments: TestEngine.allCases)
    func developing(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 3, "reveal": ["mode": "at-end"]])
            let eventID = try #require(event["id"] as? String)
            let code = try #require(event["code"] as? String)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let tom = try await app.guestToken(code: code, name: "Tom")
            let photoID = try #require(
                try await app.upload(try await TestImages.jpeg(width: 320, height: 240), event: eventID, token: maggie).string("id"))
            _ = try await app.waitUntilProcessed(photoID, token: maggie)
            let captioned = try await app.call(.patch, "/api/v1/photos/\(photoID)", json: ["caption": "a secret"], token: maggie)
            #expect(captioned.status == .ok && captioned.string("caption") == "a secret")
            // Tom learns that something developed, not what.
            let seen = try await Self.changes(app, event: eventID, token: tom).last { $0["kind"] as? String == "photo-updated" }
            #expect(seen?["photo"] == nil && seen?["developing"] as? Bool == true, "\(String(describing: seen))")
            try await app.call(.get, "/api/v1/photos/\(photoID)", token: tom).expectProblem(.notFound)
            // The shooter sees their own caption in the feed.
            let own = try await Self.changes(app, event: eventID, token: maggie).last { $0["kind"] as? String == "photo-updated" }
            #expect((own?["photo"] as? [String: Any])?["caption"] as? String == "a secret")
        }
    }
}
