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

/// ORG-5: an event organized by two. The owner's invitation makes a co-organizer, who runs the event with them;
/// deleting it, inviting and removing stay the owner's; its storage stays on the owner's quota.
@Suite("Co-organizers (ORG-5)")
struct CoOrganizerTests {
    @Test("An invitation makes a co-organizer once; they run the event; owner-only acts are refused", arguments: TestEngine.allCases)
    func invitation(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let owner = try await app.userToken()
            let event = try await app.createEvent(token: owner, ["requireApproval": true])
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            #expect(event["owner"] as? Bool == true)

            let made = try await app.call(.post, "/api/v1/events/\(id)/co-organizers/invitations", token: owner)
            #expect(made.status == .created)
            let token = try made.decode(CoOrganizerInvitation.self).token
            #expect(try made.decode(CoOrganizerInvitation.self).url.hasSuffix("/co-organize/\(token)"))
            let expires = try made.decode(CoOrganizerInvitation.self).expiresAt.timeIntervalSince(app.clock.now)
            #expect(abs(expires - 7 * 86_400) < 5)

            // Someone signed in accepts: the event is among theirs, as an organizer who does not own it.
            let leo = try await app.userToken()
            let accepted = try await app.call(.post, "/api/v1/co-organizer-invitations/\(token)", token: leo)
            #expect(accepted.status == .ok, "\(accepted.text)")
            #expect(accepted.string("role") == "organizer" && accepted["owner"] as? Bool == false)
            let listed = try await app.call(.get, "/api/v1/events", token: leo).decode(EventList.self).items
            #expect(listed.map(\.id) == [id] && listed.first?.role == .organizer && listed.first?.owner == false)
            // Used once: a second person, or Leo again, gets nothing.
            try await app.call(.post, "/api/v1/co-organizer-invitations/\(token)", token: try await app.userToken()).expectProblem(.notFound)
            let organizers = try await app.call(.get, "/api/v1/events/\(id)/co-organizers", token: leo).decode(CoOrganizerList.self)
            #expect(organizers.items.count == 1 && organizers.items.first?.addedAt != nil && organizers.owner.addedAt == nil)

            // Leo edits, ends nothing yet, moderates, removes a guest, downloads, opens the wall and the numbers.
            #expect(try await app.call(.patch, "/api/v1/events/\(id)", json: ["name": "Emma & Leo"], token: leo).status == .ok)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let photo = try #require(try await app.upload(try await TestImages.jpeg(width: 120, height: 90), event: id, token: maggie).string("id"))
            _ = try await app.waitUntilProcessed(photo, token: maggie)
            let waiting = try await app.call(.get, "/api/v1/events/\(id)/photos", token: leo)
            #expect((waiting["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [photo], "awaiting approval: organizers see it")
            #expect(try await app.call(.post, "/api/v1/photos/\(photo)/approve", token: leo).status == .ok)
            #expect(try await app.call(.get, "/api/v1/events/\(id)/stats", token: leo).status == .ok)
            #expect(try await app.call(.post, "/api/v1/events/\(id)/wall", token: leo).status == .created)
            #expect(try await app.call(.get, "/api/v1/events/\(id)/archive.zip", token: leo).status == .ok)
            let guests = try await app.call(.get, "/api/v1/events/\(id)/guests", token: leo)
            let maggieID = try #require((guests["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/guests/\(maggieID)", token: leo).status == .noContent)

            // The owner's alone: deleting, inviting, removing someone else.
            let ana = try await app.coOrganizer(of: id, owner: owner)
            try await app.call(.delete, "/api/v1/events/\(id)", token: leo).expectProblem(.forbidden)
            try await app.call(.post, "/api/v1/events/\(id)/co-organizers/invitations", token: leo).expectProblem(.forbidden)
            try await app.call(.delete, "/api/v1/events/\(id)/co-organizers/\(ana.id)", token: leo).expectProblem(.forbidden)
            #expect(try await app.call(.get, "/api/v1/events/\(id)", token: leo).status == .ok, "the event is still there")

            // The owner accepting their own link, a guest's session, nobody: refused, and the link still works after.
            let second = try await app.call(.post, "/api/v1/events/\(id)/co-organizers/invitations", token: owner).decode(CoOrganizerInvitation.self)
            try await app.call(.post, "/api/v1/co-organizer-invitations/\(second.token)", token: owner).expectProblem(.conflict)
            let guest = try await app.guestToken(code: code, name: "Tom")
            try await app.call(.post, "/api/v1/co-organizer-invitations/\(second.token)", token: guest).expectProblem(.forbidden)
            try await app.call(.post, "/api/v1/co-organizer-invitations/\(second.token)", token: nil).expectProblem(.unauthorized)
            // Past its week it is gone; made-up tokens are unknown.
            app.clock.advance(by: 7 * 86_400 + 1)
            try await app.call(.post, "/api/v1/co-organizer-invitations/\(second.token)", token: try await app.userToken()).expectProblem(.notFound)
            for made in [String(repeating: "A", count: 43), "..%2F..%2Fetc", String(repeating: "x", count: 4000)] {
                try await app.call(.post, "/api/v1/co-organizer-invitations/\(made)", token: try await app.userToken()).expectProblem(.notFound)
            }

            // Ana leaves by herself; the owner removes Leo; Leo no longer sees the event.
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/co-organizers/\(ana.id)", token: ana.token).status == .noContent)
            let leoID = try #require(organizers.items.first?.userId)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/co-organizers/\(leoID)", token: owner).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(id)", token: leo).expectProblem(.notFound)
            try await app.call(.delete, "/api/v1/events/\(id)/co-organizers/\(leoID)", token: owner).expectProblem(.notFound)
            #expect(try await app.call(.get, "/api/v1/events", token: leo).decode(EventList.self).items.isEmpty)
        }
    }

    @Test("A co-organizer's uploads count on the owner's quota; My data lists what they co-organize; removal ends their live view")
    func storageAndRemoval() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let owner = try await app.userToken()
            let id = try await app.createEvent(token: owner)["id"] as! String
            let leo = try await app.coOrganizer(of: id, owner: owner)
            let image = try await TestImages.jpeg(width: 160, height: 120)
            let photo = try #require(try await app.upload(image, event: id, token: leo.token).string("id"))
            _ = try await app.waitUntilProcessed(photo, token: leo.token)
            func myData(_ token: String) async throws -> MyData {
                let zip = try writeTemporaryFile(Data(buffer: try await app.call(.get, "/api/v1/me/export", token: token).body), suffix: ".zip")
                defer { try? FileManager.default.removeItem(at: zip) }
                return try JSONDecoder.api.decode(MyData.self, from: try await extract(zip, "data.json"))
            }
            let (ownerData, leoData) = (try await myData(owner), try await myData(leo.token))
            #expect(ownerData.account?.usedBytes ?? 0 >= Int64(image.count))
            #expect(leoData.account?.usedBytes == 0)
            #expect(leoData.coOrganized.map(\.eventId) == [id] && ownerData.coOrganized.isEmpty)

            let feed = try await app.subscribe(event: id, token: leo.token)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/co-organizers/\(leo.id)", token: owner).status == .noContent)
            let deadline = ContinuousClock.now + .seconds(60)
            while !feed.ended && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            #expect(feed.ended, "the removed co-organizer's live stream ends")
        }
    }
}
