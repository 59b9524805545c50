import DisposableAPI
import Foundation
import HTTPTypes
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Friends through HTTP (the capsule seed's stories 10–14, 46): asked by username or e-mail address, accepted or
/// declined, taken back, removed; each side told; a friend never sees the other's e-mail address.
@Suite("Friends")
struct FriendTests {
    static func list(_ app: TestApp, _ token: String) async throws -> [String: [String]] {
        let list = try await app.call(.get, "/api/v1/friends", token: token)
        var names: [String: [String]] = [:]
        for key in ["friends", "incoming", "outgoing"] {
            names[key] = ((list[key] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        }
        return names
    }

    @Test(
        "Asked by username or e-mail, accepted, declined, taken back, removed; both told; crossing requests make friends",
        arguments: TestEngine.allCases)
    func friends(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: Ana (@ana.b), Ben, Cleo, Dan
            let ana = try await app.userToken(email: "ana@example.com")
            let ben = try await app.userToken(email: "ben@example.com")
            let cleo = try await app.userToken(email: "cleo@example.com")
            let dan = try await app.userToken(email: "dan@example.com")
            for (token, name) in [(ana, "Ana"), (ben, "Ben"), (cleo, "Cleo"), (dan, "Dan")] {
                #expect(try await app.call(.patch, "/api/v1/me", json: ["name": name], token: token).status == .ok)
            }
            #expect(try await app.call(.patch, "/api/v1/me", json: ["username": "ana.b"], token: ana).status == .ok)
            let anaID = try await LibraryTests.me(app, ana)
            let benID = try await LibraryTests.me(app, ben)
            let cleoID = try await LibraryTests.me(app, cleo)

            // MUT + validate: Ben asks Ana by username (any case), Cleo by e-mail address; asking twice is once
            let asked = try await app.call(.post, "/api/v1/friends", body: FriendRequest(username: "ANA.B"), token: ben)
            #expect(asked.status == .created && asked.string("status") == "pending", "\(asked.text)")
            let friend = try #require(asked["friend"] as? [String: Any])
            #expect(friend["name"] as? String == "Ana" && friend["username"] as? String == "ana.b" && friend["email"] == nil)
            #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(username: "ana.b"), token: ben).string("status") == "pending")
            // By e-mail address: 202 naming nobody, alike for an account and for no account; Ben does not
            // see Cleo among his outgoing requests until she accepts, while she sees his.
            let byEmail = try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: " Cleo@Example.com "), token: ben)
            let noAccount = try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "nobody@example.com"), token: ben)
            #expect(byEmail.status == .accepted && noAccount.status == .accepted)
            #expect(byEmail.text == noAccount.text && byEmail.text == #"{"status":"pending"}"#, "\(byEmail.text) \(noAccount.text)")
            #expect(try await Self.list(app, cleo)["incoming"] == ["Ben"])
            #expect(try await Self.list(app, ben) == ["friends": [], "incoming": [], "outgoing": ["Ana"]])
            #expect(try await Self.list(app, ana) == ["friends": [], "incoming": ["Ben"], "outgoing": []])
            let told = try await CapsuleTests.notices(app, ana, kind: "friend-request")
            #expect(told.count == 1 && told.first?["actorName"] as? String == "Ben" && told.first?["eventId"] == nil, "\(told)")
            #expect(!(try await app.call(.get, "/api/v1/friends", token: ana).text.contains("ben@example.com")), "no e-mail address shown")

            // Ana accepts; Ben is told; Cleo declines; Ben asks Dan, then takes it back
            let accepted = try await app.call(.post, "/api/v1/friends/\(benID)/accept", token: ana)
            #expect(accepted.status == .ok && accepted.string("name") == "Ben", "\(accepted.text)")
            #expect(try await CapsuleTests.notices(app, ben, kind: "friend-accepted").first?["actorName"] as? String == "Ana")
            #expect(try await app.call(.delete, "/api/v1/friends/\(benID)", token: cleo).status == .noContent)
            #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "dan@example.com"), token: ben).status == .accepted)
            #expect(try await app.call(.delete, "/api/v1/friends/\(try await LibraryTests.me(app, dan))", token: ben).status == .noContent)
            #expect(try await Self.list(app, ben) == ["friends": ["Ana"], "incoming": [], "outgoing": []])
            #expect(try await Self.list(app, dan) == ["friends": [], "incoming": [], "outgoing": []])
            let areFriends = { (a: String, b: String) in
                try await app.services.database.sql { db in try await FriendshipRepository.areFriends(a, b, in: db) }
            }
            let (forward, backward, stranger) = (
                try await areFriends(anaID, benID), try await areFriends(benID, anaID), try await areFriends(benID, cleoID)
            )
            #expect(forward && backward && !stranger)

            // Crossing requests: Cleo asks Ana, Ana asks Cleo back — friends, and Cleo is told
            #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(username: "ana.b"), token: cleo).status == .created)
            let crossed = try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "cleo@example.com"), token: ana)
            #expect(crossed.status == .ok && crossed.string("status") == "accepted", "\(crossed.text)")
            #expect(try await Self.list(app, ana)["friends"] == ["Ben", "Cleo"])
            #expect(try await CapsuleTests.notices(app, cleo, kind: "friend-accepted").count == 1)

            // Removing ends it for both
            #expect(try await app.call(.delete, "/api/v1/friends/\(cleoID)", token: ana).status == .noContent)
            #expect(try await Self.list(app, cleo)["friends"] == [])
            try await app.call(.delete, "/api/v1/friends/\(cleoID)", token: ana).expectProblem(.notFound)

            // The page: in French, with the forms
            let page = try await app.page(.get, "/friends", cookie: ana, headers: [.acceptLanguage: "fr"]).text
            #expect(page.contains("Amis") && page.contains("data-id=\"\(benID)\"") && page.contains("@ana.b"))
            #expect(try await app.page(.post, "/friends", cookie: dan, form: "who=ana.b").status == .seeOther)
            #expect(try await app.page(.post, "/friends/\(try await LibraryTests.me(app, dan))/accept", cookie: ana).status == .seeOther)
            #expect(try await Self.list(app, dan)["friends"] == ["Ana"])
            let unknown = try await app.page(.post, "/friends", cookie: dan, form: "who=nobody")
            #expect(unknown.status == .notFound && unknown.text.contains("No account here"))
            let emailed = try await app.page(.post, "/friends", cookie: dan, form: "who=nobody%40example.com")
            #expect(emailed.status == .seeOther && emailed.headers[.location]?.contains("done=emailed") == true)

            // Erasing an account ends its friendships and takes back what others were told of it
            let email = "ben@example.com"
            #expect(try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": email], token: ben).status == .noContent)
            #expect(try await Self.list(app, ana)["friends"] == ["Dan"])
            #expect(try await CapsuleTests.notices(app, ana, kind: "friend-request").allSatisfy { $0["actorName"] as? String != "Ben" })
        }
    }

    @Test("Refused: nobody, oneself, both or neither, bad addresses, unknown fields, guests; strangers' ids", arguments: TestEngine.allCases)
    func hostile(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let ana = try await app.userToken(email: "ana@example.com")
            let ben = try await app.userToken(email: "ben@example.com")
            try await app.call(.post, "/api/v1/friends", body: FriendRequest(username: "nobody"), token: ana).expectProblem(.notFound)
            try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "ana@example.com"), token: ana).expectProblem(
                .unprocessableContent)
            for body: [String: Any] in [
                [:], ["username": "ben", "email": "ben@example.com"], ["username": "a"], ["username": "<script>"], ["email": "not an address"],
                ["username": ""],
            ] {
                try await app.call(.post, "/api/v1/friends", json: body, token: ana).expectProblem(.unprocessableContent)
            }
            for body: [String: Any] in [["username": 42], ["name": "Ben"]] {
                try await app.call(.post, "/api/v1/friends", json: body, token: ana).expectProblem(.badRequest)
            }
            let benID = try await LibraryTests.me(app, ben)
            try await app.call(.post, "/api/v1/friends/\(benID)/accept", token: ana).expectProblem(.notFound)
            // One's own request cannot be accepted by oneself
            #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "ben@example.com"), token: ana).status == .accepted)
            try await app.call(.post, "/api/v1/friends/\(benID)/accept", token: ana).expectProblem(.notFound)
            try await app.call(.delete, "/api/v1/friends/\(String(repeating: "x", count: 5000))", token: ana).expectProblem(.notFound)
            let guest = try await app.guestToken(code: try await app.createEvent(token: ana)["code"] as! String)
            try await app.call(.get, "/api/v1/friends", token: guest).expectProblem(.forbidden)
            try await app.call(.get, "/api/v1/friends").expectProblem(.unauthorized)
        }
    }

    @Test("Friend requests are rate-limited per account")
    func rateLimited() async throws {
        try await TestApp.run(.sqlite, configure: { $0.limits.friendRequests = .init(burst: 3, refillEvery: .seconds(3600)) }) { app in
            let ana = try await app.userToken()
            var statuses: [Int] = []
            for _ in 0..<4 {
                let other = try await app.userToken()
                let email = try #require(((try await app.call(.get, "/api/v1/me", token: other))["user"] as? [String: Any])?["email"] as? String)
                statuses.append(Int(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: email), token: ana).status.code))
            }
            #expect(statuses == [202, 202, 202, 429])
        }
    }
}
