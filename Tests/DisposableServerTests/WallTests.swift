import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// GAL-5: the venue wall opens on a screen nobody signs in on, shows what every guest may
/// see — live — and stops when the organizer replaces or turns off its link.
@Suite("Venue wall (GAL-5)")
struct WallTests {
    @Test("A wall link shows guests' view without signing in, live, and stops when replaced or turned off", arguments: TestEngine.allCases)
    func wallLink(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["requireApproval": true])
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            let ana = try await app.guestToken(code: code, name: "Ana")
            let stranger = try await app.userToken()

            // Only the organizer makes the link.
            try await app.call(.post, "/api/v1/events/\(id)/wall").expectProblem(.unauthorized)
            try await app.call(.post, "/api/v1/events/\(id)/wall", token: ana).expectProblem(.forbidden)
            try await app.call(.post, "/api/v1/events/\(id)/wall", token: stranger).expectProblem(.notFound)
            let made = try await app.call(.post, "/api/v1/events/\(id)/wall", token: organizer)
            #expect(made.status == .created)
            let url = try #require(made.string("url"))
            let key = try #require(url.components(separatedBy: "/w/").last)
            #expect(url.hasSuffix("/w/\(key)") && key.count == 43)

            // Ana's photo waits for approval; the organizer's does not.
            let held = try #require(try await app.upload(try await TestImages.jpeg(width: 300, height: 200), event: id, token: ana).string("id"))
            let own = try #require(
                try await app.upload(try await TestImages.jpeg(width: 301, height: 200), event: id, token: organizer).string("id"))
            _ = try await app.waitUntilProcessed(held, token: ana)
            _ = try await app.waitUntilProcessed(own, token: organizer)

            // No session at all: the wall sees what any guest sees, with links that open without one.
            let page = try await app.call(.get, "/api/v1/walls/\(key)/photos")
            #expect(page.status == .ok)
            let items = page["items"] as? [[String: Any]] ?? []
            #expect(items.compactMap { $0["id"] as? String } == [own])
            #expect(items.first?["mine"] as? Bool == false)
            let preview = try #require((items.first?["urls"] as? [String: Any])?["preview"] as? String)
            let link = try #require(URLComponents(string: preview))
            #expect(try await app.call(.get, link.percentEncodedPath + (link.percentEncodedQuery.map { "?\($0)" } ?? "")).status == .ok)

            // Live: approving Ana's photo puts it on the wall.
            let port = try #require(app.client.port)
            let feed = try await SSEClient.connect("http://127.0.0.1:\(port)/api/v1/walls/\(key)/changes", token: nil)
            #expect(feed.status == 200)
            #expect(try await app.call(.post, "/api/v1/photos/\(held)/approve", token: organizer).status == .ok)
            let approved = try #require(try await feed.next())
            #expect(approved.name == "photo-ready")
            #expect((approved.json["photo"] as? [String: Any])?["id"] as? String == held)

            // The page around it: the name, the code and the QR, for a browser with no session.
            let html = try await app.call(.get, "/w/\(key)")
            #expect(html.status == .ok && html.text.contains("<svg") && html.text.contains(code.uppercased()))

            // A new link: the old one stops at once, and its open stream within seconds.
            let renewed = try #require(try await app.call(.post, "/api/v1/events/\(id)/wall", token: organizer).string("url"))
            #expect(renewed != url)
            try await app.call(.get, "/api/v1/walls/\(key)/photos").expectProblem(.notFound)
            let deadline = ContinuousClock.now + .seconds(60)
            while !feed.ended && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            #expect(feed.ended, "the stream of a replaced link ends")
            #expect(try await app.call(.get, "/w/\(key)").status == .notFound)

            // Turned off: nothing opens with it.
            let newKey = try #require(renewed.components(separatedBy: "/w/").last)
            #expect(try await app.call(.get, "/api/v1/walls/\(newKey)/photos").status == .ok)
            try await app.call(.delete, "/api/v1/events/\(id)/wall", token: ana).expectProblem(.forbidden)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/wall", token: organizer).status == .noContent)
            try await app.call(.get, "/api/v1/walls/\(newKey)/photos").expectProblem(.notFound)
            try await app.call(.get, "/api/v1/walls/\(newKey)/changes").expectProblem(.notFound)
        }
    }

    @Test("The event's wall page leads its organizer to the wall link; hostile wall keys get a 404 and reveal nothing")
    func doorAndHostileKeys() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            let ana = try await app.guestToken(code: code, name: "Ana")
            // The organizer's way in from the event: the wall link, made on first use and the same after.
            let door = try await app.call(.get, "/e/\(code)/wall", token: organizer)
            #expect(door.status == .seeOther && door.headers[.location]?.contains("/w/") == true)
            #expect(try await app.call(.get, "/e/\(code)/wall", token: organizer).headers[.location] == door.headers[.location])
            #expect(try await app.call(.get, "/e/\(code)/wall", token: ana).headers[.location] == "/e/\(code)")

            let keys = [
                String(repeating: "A", count: 43), "short", String(repeating: "x", count: 5000), "%27%20OR%201%3D1--", "%00",
                "..%2F..%2Fetc%2Fpasswd", "%F0%9F%93%B7%F0%9F%93%B7", "%3Cscript%3E",
            ]
            for key in keys {
                try await app.call(.get, "/api/v1/walls/\(key)/photos").expectProblem(.notFound)
                try await app.call(.get, "/api/v1/walls/\(key)/changes").expectProblem(.notFound)
                let page = try await app.call(.get, "/w/\(key)")
                #expect(page.status == .notFound && page.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(!page.text.contains("<script>"))
            }
            // Limits are checked like the gallery's.
            let url = try #require(try await app.call(.post, "/api/v1/events/\(id)/wall", token: organizer).string("url"))
            let key = try #require(url.components(separatedBy: "/w/").last)
            try await app.call(.get, "/api/v1/walls/\(key)/photos?limit=100000").expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/walls/\(key)/photos?cursor=nonsense").expectProblem(.unprocessableContent)
        }
    }
}
