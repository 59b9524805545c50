import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Words a walk-through of the pages as a new user found wrong: each page says what a person needs, in their language.
@Suite("Words the walk-through found")
struct WalkThroughTests {
    @Test("French tells a guest's shots from the library; copy buttons say what they copied; the trash counts from the deletion")
    func words() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let code = event["code"] as! String
            let guest = try await app.guestToken(code: code)
            let french: HTTPFields = [.acceptLanguage: "fr"]
            let mine = try await app.page(.get, "/e/\(code)/mine", cookie: guest, headers: french)
            #expect(mine.text.contains("Mes prises") && !mine.text.contains(">Mes photos<"), "a guest's own shots are not the library")
            let manage = try await app.page(.get, "/events/\(event["id"] as! String)", cookie: organizer)
            #expect(manage.text.contains(##"data-copy="#join-link" data-copied="Join link copied""##))
            let trash = try await app.page(.get, "/library/trash", cookie: organizer)
            #expect(trash.text.contains("30 days after you delete them"))
        }
    }

    @Test("An ended event's page leads with its photos (download, gallery, recap) before the invitation; its wall no longer says join")
    func ended() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let wall = try await app.call(.post, "/api/v1/events/\(id)/wall", token: organizer)
            let wallPath = try #require((wall.string("url")).flatMap { URL(string: $0)?.path })
            let before = try await app.page(.get, "/events/\(id)", cookie: organizer)
            #expect(!before.text.contains(#"id="after""#))
            #expect(try await app.page(.get, wallPath).text.contains("Join from your phone"))
            #expect(try await app.call(.post, "/api/v1/events/\(id)/end", token: organizer).status == .ok)
            let page = try await app.page(.get, "/events/\(id)", cookie: organizer).text
            let after = try #require(page.range(of: #"id="after""#)), share = try #require(page.range(of: #"id="share""#))
            #expect(after.lowerBound < share.lowerBound, "the photos first, the invitation after")
            #expect(page.contains("/e/\(event["code"] as! String)/recap") && page.contains("archive.zip"))
            let screen = try await app.page(.get, wallPath).text
            #expect(!screen.contains("Join from your phone") && screen.contains("See them all on your phone"))
        }
    }
}
