import DisposableAPI
import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// JN-6: all my shots. Joining signed in makes the account that guest: its shots of every event it is still in are
/// one list, newest first — its own always (before the reveal too), nobody else's, nothing of an event it left.
@Suite("All my shots (JN-6)")
struct MyPhotosTests {
    @Test("Across two events, one not revealed yet; not others' shots, not an event I was removed from", arguments: TestEngine.allCases)
    func acrossEvents(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let ana = try await app.userToken()
            let owner = try await app.userToken()
            let wedding = try await app.createEvent(token: owner)
            let party = try await app.createEvent(token: owner, ["reveal": ["mode": "at-end"]])
            let picnic = try await app.createEvent(token: owner)
            func join(_ event: [String: Any], as token: String) async throws {
                let joined = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as! String, name: "Ana"), token: token)
                #expect(joined.status == .created, "\(joined.text)")
            }
            for event in [wedding, party, picnic] { try await join(event, as: ana) }
            func shoot(_ event: [String: Any], _ token: String, width: Int) async throws -> String {
                let id = try #require(
                    try await app.upload(try await TestImages.jpeg(width: width, height: 100), event: event["id"] as! String, token: token).string(
                        "id"))
                _ = try await app.waitUntilProcessed(id, token: token)
                return id
            }
            let first = try await shoot(wedding, ana, width: 150)
            app.clock.advance(by: 60)
            let developing = try await shoot(party, ana, width: 151)
            app.clock.advance(by: 60)
            let second = try await shoot(wedding, ana, width: 152)
            _ = try await shoot(wedding, owner, width: 153)  // not Ana's
            let removed = try await shoot(picnic, ana, width: 154)
            // Ana is removed from the picnic: its shot is no longer hers to list.
            let guests = try await app.call(.get, "/api/v1/events/\(picnic["id"] as! String)/guests", token: owner)
            let anaGuest = try #require((guests["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/events/\(picnic["id"] as! String)/guests/\(anaGuest)", token: owner).status == .noContent)

            let page = try await app.call(.get, "/api/v1/me/photos", token: ana).decode(MyPhotosPage.self)
            #expect(page.items.map(\.id) == [second, developing, first], "newest first, the developing one included")
            #expect(!page.items.map(\.id).contains(removed))
            #expect(page.items.allSatisfy { $0.mine == true })
            #expect(page.events.map(\.id) == [wedding["id"] as! String, party["id"] as! String])
            #expect(page.events.first?.name == wedding["name"] as? String)
            // The developing photo is still hidden from others in its event.
            let other = try await app.guestToken(code: party["code"] as! String, name: "Ben")
            let gallery = try await app.call(.get, "/api/v1/events/\(party["id"] as! String)/photos", token: other)
            #expect((gallery["items"] as? [[String: Any]])?.isEmpty == true)

            // In pages; bad cursors and limits are refused with a sentence.
            let one = try await app.call(.get, "/api/v1/me/photos?limit=1", token: ana).decode(MyPhotosPage.self)
            let cursor = try #require(one.nextCursor)
            let next = try await app.call(.get, "/api/v1/me/photos?limit=2&cursor=\(cursor)", token: ana).decode(MyPhotosPage.self)
            #expect(one.items.map(\.id) + next.items.map(\.id) == [second, developing, first] && next.nextCursor == nil)
            try await app.call(.get, "/api/v1/me/photos?cursor=not-ours", token: ana).expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/me/photos?limit=0", token: ana).expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/me/photos?limit=101", token: ana).expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/me/photos").expectProblem(.unauthorized)

            // The organizer's own shots are theirs too; a guest without an account sees their event's.
            let mine = try await app.call(.get, "/api/v1/me/photos", token: owner).decode(MyPhotosPage.self)
            #expect(mine.items.count == 1 && mine.events.map(\.id) == [wedding["id"] as! String])
            let tom = try await app.guestToken(code: wedding["code"] as! String, name: "Tom")
            let toms = try await shoot(wedding, tom, width: 155)
            #expect(try await app.call(.get, "/api/v1/me/photos", token: tom).decode(MyPhotosPage.self).items.map(\.id) == [toms])

            // Saved to the library from there: it outlives the event.
            #expect(try await app.call(.post, "/api/v1/photos/\(first)/save-to-library", token: ana).status.code < 300)
        }
    }
}
