import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// Seed 000's "personal gallery organized by event": a signed-in person finds the photos of all
/// their events in one place — My events shows the newest of each, as that person may see them.
@Suite struct PersonalGalleryTests {
    @Test("My events shows each event's newest photos as the person may see them, none before the reveal", arguments: TestEngine.allCases)
    func strips(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let ana = try await app.userToken(email: "ana@example.com")
            let wedding = try await app.createEvent(token: ana, ["name": "Ana & Ben"])
            let tom = try await app.userToken(email: "tom@example.com")
            // Tom joins the wedding signed in (the guest is his account's), and a surprise party that reveals at its end.
            let joined = try await app.call(
                .post, "/api/v1/join", body: JoinRequest(code: try #require(wedding["code"] as? String), name: "Tom"), token: tom)
            #expect(joined.status == .created, "\(joined.text)")
            let tomAtWedding = try joined.decode(JoinResult.self).token
            let party = try await app.createEvent(
                token: try await app.userToken(email: "zoe@example.com"), ["name": "Surprise", "reveal": ["mode": "at-end"]])
            let atParty = try await app.call(
                .post, "/api/v1/join", body: JoinRequest(code: try #require(party["code"] as? String), name: "Tom"), token: tom)
            let tomAtParty = try atParty.decode(JoinResult.self).token

            let weddingID = try #require(wedding["id"] as? String)
            var shots: [String] = []
            for (width, event, token) in [
                (400, weddingID, ana), (401, weddingID, tomAtWedding), (402, try #require(party["id"] as? String), tomAtParty),
            ] {
                let id = try #require(
                    try await app.upload(try await TestImages.jpeg(width: width, height: 300), event: event, token: token).string("id"))
                _ = try await app.waitUntilProcessed(id, token: token)
                shots.append(id)
                app.clock.advance(by: 60)  // one upload a minute: "newest first" is one order
            }
            let (byAna, byTom, hidden) = (shots[0], shots[1], shots[2])
            let note = try await app.call(.post, "/api/v1/events/\(weddingID)/notes", json: ["text": "Congratulations!"], token: tomAtWedding)
            #expect(note.status == .created, "\(note.text)")

            let tomsPage = try await app.page(.get, "/events", cookie: tom)
            #expect(tomsPage.status == .ok)
            // Both wedding photos, newest first, each a thumbnail, the strip one link to the gallery; the note has no picture.
            let strip = try #require(Self.strip(named: "Ana &amp; Ben", in: tomsPage.text), "\(tomsPage.text)")
            #expect(Self.photoIDs(in: strip) == [byTom, byAna])
            let code = try #require(wedding["code"] as? String)
            #expect(tomsPage.text.contains("<a class=\"event-strip\" href=\"/e/\(code)\" aria-label=\"See the photos of Ana &amp; Ben\">"))
            // The party keeps its photos developing until it ends: no strip for it yet.
            #expect(!tomsPage.text.contains(hidden) && Self.strip(named: "Surprise", in: tomsPage.text) == nil)
            // The organizer sees the same photos of her event.
            let anasPage = try await app.page(.get, "/events", cookie: ana, headers: [.acceptLanguage: "fr"])
            let hers = try #require(Self.strip(named: "Ana &amp; Ben", in: anasPage.text, label: "Voir les photos de"))
            #expect(Self.photoIDs(in: hers) == [byTom, byAna])
        }
    }

    /// The strip's markup for the event named `name`, if it has one.
    static func strip(named name: String, in html: String, label: String = "See the photos of") -> String? {
        guard let start = html.range(of: "aria-label=\"\(label) \(name)\"") else { return nil }
        guard let end = html.range(of: "</a>", range: start.upperBound..<html.endIndex) else { return nil }
        return String(html[start.lowerBound..<end.lowerBound])
    }

    /// The photo ids in a strip's thumbnail addresses, in order.
    static func photoIDs(in strip: String) -> [String] {
        strip.components(separatedBy: "<img src=\"").dropFirst().compactMap { tag in
            tag.split(separator: "/").dropFirst(4).first.map(String.init)
        }
    }
}
