import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// A guest corrects the name they joined under (GDPR rectification): the roster, their photos
/// and their comments show the new one at once, and open galleries are told.
@Suite("Correcting a guest's name")
struct GuestNameTests {
    @Test("Renamed everywhere at once, told live; a name another guest holds gets a number", arguments: TestEngine.allCases)
    func rename(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            let maggie = try await app.guestToken(code: code, name: "Magie")
            let ben = try await app.guestToken(code: code, name: "Ben")
            let photo = try #require(try await app.upload(try await TestImages.jpeg(), event: id, token: maggie).string("id"))
            _ = try await app.waitUntilProcessed(photo, token: maggie)
            let bens = try #require(try await app.upload(try await TestImages.jpeg(), event: id, token: ben).string("id"))
            _ = try await app.waitUntilProcessed(bens, token: ben)
            #expect(try await app.call(.post, "/api/v1/photos/\(bens)/comments", json: ["text": "Lovely"], token: maggie).status == .created)
            let before = try await GuestbookTests.changes(app, event: id, token: ben).count

            let renamed = try await app.call(.patch, "/api/v1/events/\(id)/membership", body: MembershipPatch(name: " Maggie "), token: maggie)
            #expect(try renamed.decode(GuestJSON.self).name == "Maggie")
            let shown = try await app.call(.get, "/api/v1/photos/\(photo)", token: ben).decode(PhotoJSON.self)
            #expect(shown.shooter.name == "Maggie")
            let comments = try #require(try await app.call(.get, "/api/v1/photos/\(bens)/comments", token: ben)["items"] as? [[String: Any]])
            #expect((comments.first?["author"] as? [String: Any])?["name"] as? String == "Maggie")
            let roster = try #require(try await app.call(.get, "/api/v1/events/\(id)/guests", token: organizer)["items"] as? [[String: Any]])
            #expect(Set(roster.compactMap { $0["name"] as? String }) == ["Maggie", "Ben"])
            let told = try await GuestbookTests.changes(app, event: id, token: ben).dropFirst(before)
            #expect(told.contains { $0["kind"] as? String == "photo-updated" && ($0["photo"] as? [String: Any])?["id"] as? String == photo })

            // Ben takes a name Maggie holds: the event tells them apart, as at joining.
            let clash = try await app.call(.patch, "/api/v1/events/\(id)/membership", body: MembershipPatch(name: "maggie"), token: ben)
            #expect(try clash.decode(GuestJSON.self).name == "maggie 2")
        }
    }

    @Test("Bad names and the wrong people get clear refusals")
    func refusals() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let guest = try await app.guestToken(code: event["code"] as! String)
            for bad in ["", "   ", String(repeating: "a", count: 41), "Ana\u{0}", "Ana\nBen", "\u{202E}anA"] {
                let refused = try await app.call(.patch, "/api/v1/events/\(id)/membership", json: ["name": bad], token: guest)
                refused.expectProblem(.unprocessableContent)
            }
            try await app.call(.patch, "/api/v1/events/\(id)/membership", json: ["name": "Ok", "admin": true], token: guest).expectProblem(
                .badRequest)
            try await app.call(.patch, "/api/v1/events/\(id)/membership", json: ["name": "Olivia"], token: organizer).expectProblem(.conflict)
            try await app.call(.patch, "/api/v1/events/\(id)/membership", json: ["name": "Eve"]).expectProblem(.unauthorized)
            // Each rename rewrites all of a guest's posts live: five in a row, then a wait, said with Retry-After.
            for n in 1...5 {
                #expect(
                    try await app.call(.patch, "/api/v1/events/\(id)/membership", body: MembershipPatch(name: "Ana \(n)"), token: guest).status == .ok
                )
            }
            let flood = try await app.call(.patch, "/api/v1/events/\(id)/membership", body: MembershipPatch(name: "Ana 6"), token: guest)
            flood.expectProblem(.tooManyRequests)
            #expect(Int(flood.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try await app.call(.patch, "/api/v1/events/\(id)/membership", body: MembershipPatch(name: "Ana 5"), token: guest).status == .ok)
        }
    }

    @Test("The guest's More page corrects the name; a bad one comes back with its reason")
    func page() async throws {
        try await TestApp.run(.sqlite) { app in
            let event = try await app.createEvent(token: try await app.userToken())
            let code = event["code"] as! String
            var phone = LeavingTests.Phone()
            _ = try await LeavingTests.join(&phone, app, code: code, name: "Magie")
            let saved = try await phone.page(app, .post, "/e/\(code)/name", form: "name=Maggie")
            #expect(saved.status == .seeOther && saved.headers[.location] == "/e/\(code)/continue?renamed=1#your-name")
            let more = try await phone.page(app, .get, "/e/\(code)/continue?renamed=1")
            #expect(more.text.contains("value=\"Maggie\"") && more.text.contains("everyone now sees your new name"))
            let refused = try await phone.page(app, .post, "/e/\(code)/name", form: "name=%20")
            #expect(refused.headers[.location] == "/e/\(code)/continue?name=invalid#your-name")
            #expect(try await phone.page(app, .get, "/e/\(code)/continue?name=invalid").text.contains("1 to 40"))
        }
    }
}
