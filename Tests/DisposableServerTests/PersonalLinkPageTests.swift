import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// JN-5 through the pages: a personal link opened on a second phone, confirmed by a button.
@Suite("Personal links (JN-5)")
struct PersonalLinkPageTests {
    @Test("JN-5: a personal link signs a second phone in as the same guest, once")
    func personalLink() async throws {
        try await TestApp.run(.sqlite) { app in
            let event = try await app.createEvent(token: try await app.userToken(), ["shotsPerGuest": 2])
            let guest = try await app.guestToken(code: event["code"] as! String, name: "Maggie")
            let link = try await app.call(.post, "/api/v1/events/\(event["id"] as! String)/membership/link", token: guest)
            #expect(link.status == .created)
            let url = try #require(link.string("url"))
            let path = String(url[url.range(of: "/c/")!.lowerBound...])
            // Opening the link changes nothing yet: the second phone confirms first.
            let shown = try await app.page(.get, path)
            #expect(shown.status == .ok)
            #expect(shown.text.contains("Maggie") && shown.text.contains("method=\"post\""))
            #expect(!shown.headers[values: .setCookie].contains { $0.hasPrefix("disposable_session=") })
            let first = try await app.page(.post, path)
            #expect(first.status == .seeOther)
            let cookie = try #require(first.headers[values: .setCookie].first { $0.hasPrefix("disposable_session=") })
            let secondToken = String(cookie.dropFirst("disposable_session=".count).prefix { $0 != ";" })
            let me = try await app.call(.get, "/api/v1/me", token: secondToken)
            #expect((me["guest"] as? [String: Any])?["name"] as? String == "Maggie")
            // Both phones share the same shots.
            #expect(
                try await app.upload(try await TestImages.jpeg(width: 64, height: 48), event: event["id"] as! String, token: guest).status == .created
            )
            #expect(
                try await app.upload(try await TestImages.jpeg(width: 65, height: 48), event: event["id"] as! String, token: secondToken).status
                    == .created)
            #expect(
                try await app.upload(try await TestImages.jpeg(width: 66, height: 48), event: event["id"] as! String, token: secondToken).status
                    == .forbidden)
            #expect(try await app.page(.get, path).status == .notFound)
            #expect(try await app.page(.post, path).status == .notFound)
        }
    }

    @Test("JN-5: a signed-in organizer who opens a personal link keeps their session until they confirm")
    func personalLinkKeepsSession() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let guest = try await app.guestToken(code: event["code"] as! String, name: "Maggie")
            let url = try #require(try await app.call(.post, "/api/v1/events/\(event["id"] as! String)/membership/link", token: guest).string("url"))
            let path = String(url[url.range(of: "/c/")!.lowerBound...])
            let shown = try await app.page(.get, path, cookie: organizer)
            #expect(shown.status == .ok && shown.text.contains("Olivia"))
            #expect(try await app.page(.get, "/events", cookie: organizer).status == .ok)
        }
    }
}
