import DisposableAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// JN-3 as a guest's phones see it: leaving on one phone leaves the others alone, leaving on
/// every phone is a choice of its own, and coming back from the same browser under the same name is the same
/// guest with the same shots left — the shot limit holds.
@Suite("Leaving an event, per phone or on every phone")
struct LeavingTests {
    /// A browser's cookie jar over the test client: what a phone keeps between pages.
    struct Phone {
        var cookies: [String: String] = [:]

        mutating func page(_ app: TestApp, _ method: HTTPRequest.Method, _ path: String, form: String? = nil) async throws -> APIResponse {
            var headers: HTTPFields = [:]
            if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
            if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
            let response = try await app.client.execute(uri: path, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) }) {
                APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
            }
            for line in response.headers[values: .setCookie] {
                let pair = line.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                let value = pair.count > 1 ? pair[1] : ""
                if value.isEmpty || line.contains("Max-Age=0") { cookies[pair[0]] = nil } else { cookies[pair[0]] = value }
            }
            return response
        }

        var token: String? { cookies["disposable_session"] }
    }

    static func join(_ phone: inout Phone, _ app: TestApp, code: String, name: String) async throws -> APIResponse {
        try await phone.page(app, .post, "/e/\(code)/join", form: "name=\(name)&terms=\(TermsOfUse.version)")
    }

    /// Her second phone, joined by her personal link (JN-5): the same guest. Returns its token.
    static func secondPhone(_ app: TestApp, event: String, first: Phone) async throws -> String? {
        let link = try await app.call(.post, "/api/v1/events/\(event)/membership/link", token: first.token).decode(PersonalLink.self)
        var second = Phone()
        #expect(try await second.page(app, .post, "/c/\(link.url.split(separator: "/").last!)").status == .seeOther)
        return second.token
    }

    static func guestID(_ app: TestApp, _ token: String?) async throws -> String? {
        try await app.call(.get, "/api/v1/me", token: token).decode(Me.self).guest?.id
    }

    static func shotsLeft(_ app: TestApp, event: String, token: String?) async throws -> Int? {
        let me = try await app.call(.get, "/api/v1/me", token: token).decode(Me.self)
        return me.guest?.eventId == event ? me.guest?.shotsLeft : nil
    }

    @Test("This phone forgets the event; the other phone and the shots stay; the same name here comes back")
    func onThisPhone() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 3, "maxGuests": 2])
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            var phone = Phone()
            #expect(try await Self.join(&phone, app, code: code, name: "Maggie").status == .seeOther)
            let guestID = try #require(try await Self.guestID(app, phone.token))
            let photo = try await app.upload(try await TestImages.jpeg(), event: id, token: phone.token)
            #expect(photo.status == .created)
            let second = try await Self.secondPhone(app, event: id, first: phone)
            #expect(try await Self.shotsLeft(app, event: id, token: second) == 2)

            let left = try await phone.page(app, .post, "/e/\(code)/leave", form: "")
            #expect(left.status == .seeOther && left.headers[.location] == "/?left=1")
            #expect(phone.token == nil && phone.cookies["disposable_joined"] == nil)
            #expect(phone.cookies["disposable_left"] != nil)
            #expect(try await phone.page(app, .get, "/e/\(code)").text.contains("name=\"name\""), "the join form again")
            #expect(try await Self.shotsLeft(app, event: id, token: second) == 2, "the other phone is still in")
            let guests = try await app.call(.get, "/api/v1/events/\(id)/guests", token: organizer).json["items"] as? [[String: Any]]
            #expect(guests?.count == 1, "still one guest, holding her place")

            // Someone else on this browser is someone else.
            var shared = phone
            #expect(try await Self.join(&shared, app, code: code, name: "Ben").status == .seeOther)
            #expect(try await Self.guestID(app, shared.token) != guestID)
            // She comes back under her name: the same guest, her photo deletable, 2 shots left, not 3.
            let back = try await Self.join(&phone, app, code: code, name: "maggie")
            #expect(back.status == .seeOther && back.headers[.location] == "/e/\(code)/camera")
            #expect(try await Self.guestID(app, phone.token) == guestID)
            #expect(try await Self.shotsLeft(app, event: id, token: phone.token) == 2)
            #expect(phone.cookies["disposable_left"] == nil)
        }
    }

    @Test(
        "On every phone: the place is freed and the other phones are out; this browser can still come back",
        arguments: TestEngine.allCases)
    func onEveryPhone(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 3])
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            var phone = Phone()
            _ = try await Self.join(&phone, app, code: code, name: "Maggie")
            let guestID = try #require(try await Self.guestID(app, phone.token))
            #expect(try await app.upload(try await TestImages.jpeg(), event: id, token: phone.token).status == .created)
            let second = try await Self.secondPhone(app, event: id, first: phone)

            #expect(try await phone.page(app, .post, "/e/\(code)/leave", form: "everywhere=true").status == .seeOther)
            #expect(try await app.call(.get, "/api/v1/me", token: second).status == .unauthorized, "the other phone is signed out")
            let guests = try await app.call(.get, "/api/v1/events/\(id)/guests", token: organizer).json["items"] as? [[String: Any]]
            #expect(guests?.isEmpty == true, "her place is free")

            _ = try await Self.join(&phone, app, code: code, name: "Maggie")
            #expect(try await Self.guestID(app, phone.token) == guestID)
            #expect(try await Self.shotsLeft(app, event: id, token: phone.token) == 2, "the roll is not new")
        }
    }

    @Test("A guest the organizer removed does not come back through the browser's kept token")
    func removedStayOut() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 3])
            let (id, code) = (event["id"] as! String, event["code"] as! String)
            var phone = Phone()
            _ = try await Self.join(&phone, app, code: code, name: "Maggie")
            let guestID = try #require(try await Self.guestID(app, phone.token))
            _ = try await phone.page(app, .post, "/e/\(code)/leave", form: "")
            let removed = try await app.call(.delete, "/api/v1/events/\(id)/guests/\(guestID)", token: organizer)
            #expect(removed.status == .noContent)
            _ = try await Self.join(&phone, app, code: code, name: "Maggie")
            #expect(try await Self.guestID(app, phone.token) != guestID)
            #expect(try await Self.shotsLeft(app, event: id, token: phone.token) == 3)
        }
    }

    @Test(
        "Names a browser comes back under",
        arguments: [
            ("Maggie", "maggie", true), ("Maggie 2", "Maggie", true), ("Maggie", "Mag", false),
            ("Maggie 2b", "Maggie", false), ("Ben", "Maggie", false),
        ])
    func sameName(shown: String, typed: String, expected: Bool) {
        #expect(JoinService.sameName(shown, typed: typed) == expected)
    }
}
