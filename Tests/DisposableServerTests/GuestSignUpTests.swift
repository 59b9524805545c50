import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A guest who creates an account (or signs in) in the middle of an event goes on as the same guest: the same roll
/// and the same shots, now the account's — never a fresh roll.
@Suite("A guest who signs up")
struct GuestSignUpTests {
    @Test("Signing up with a guest's token keeps that guest: the roll, the shots, the account's photos; joining again is that guest")
    func signUpKeepsTheRoll() async throws {
        try await TestApp.run(.sqlite) { app in
            // setup: Iris joins an event of 2 shots and takes one
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 2])
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            let joined = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code, name: "Iris"))
            let guest = try joined.decode(JoinResult.self)
            let jpeg = try await TestImages.jpeg(width: 96, height: 64)
            let first = try #require(try await app.upload(jpeg + Data("first".utf8), event: eventID, token: guest.token).string("id"))

            // MUT: she signs up and in with her guest token, then joins again as the account
            let registered = try await app.call(
                .post, "/api/v1/users", body: RegisterRequest(email: "iris@example.com", password: "correct horse", name: "Iris"),
                token: guest.token)
            #expect(registered.status == .created, "\(registered.text)")
            let account = try
                (try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "iris@example.com", password: "correct horse")))
                .decode(Session.self).token
            let again = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code, name: "Iris"), token: account)

            // validate: the same guest, one shot left; the second shot goes, a third does not
            #expect(again.status == .created, "\(again.text)")
            let back = try again.decode(JoinResult.self)
            #expect(back.guest.id == guest.guest.id && back.guest.name == "Iris" && back.guest.shotsLeft == 1, "\(again.text)")
            #expect(try await app.upload(jpeg + Data("second".utf8), event: eventID, token: account).status == .created)
            let third = try await app.upload(jpeg + Data("third".utf8), event: eventID, token: account)
            #expect(third.status == .forbidden, "\(third.text)")
            #expect(try await app.upload(jpeg + Data("fourth".utf8), event: eventID, token: back.token).status == .forbidden)
            // Her first photo is the account's: listed among its photos, deletable by it
            let mine = try await app.call(.get, "/api/v1/me/photos", token: account)
            #expect(mine.text.contains(first), "\(mine.text)")
            #expect(try await app.call(.delete, "/api/v1/photos/\(first)", token: account).status == .noContent)
            // One guest in the list, not two
            let guests = try await app.call(.get, "/api/v1/events/\(eventID)/guests", token: organizer)
            #expect(!guests.text.contains("Iris 2"), "\(guests.text)")
        }
    }

    @Test("Signing in with a guest's session cookie keeps that guest; an account already in the event keeps its own")
    func signInKeepsTheGuest() async throws {
        try await TestApp.run(.sqlite) { app in
            // setup
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 1])
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            _ = try await app.userToken(email: "noa@example.com")
            let guest = try await app.guestToken(code: code, name: "Noa")
            let jpeg = try await TestImages.jpeg(width: 96, height: 64)
            #expect(try await app.upload(jpeg, event: eventID, token: guest).status == .created)

            // MUT: the browser signs in, its guest's cookie riding along
            let cookie: HTTPFields = [.cookie: "\(SessionCookie.name)=\(guest)"]
            let session = try await app.call(
                .post, "/api/v1/sessions", body: LoginRequest(email: "noa@example.com", password: "correct horse"), headers: cookie)
            let account = try session.decode(Session.self).token

            // validate: joining again is Noa, with no shot left
            let again = try (try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code, name: "Noa"), token: account))
                .decode(JoinResult.self)
            #expect(again.guest.name == "Noa" && again.guest.shotsLeft == 0)
            #expect(try await app.upload(jpeg + Data("more".utf8), event: eventID, token: account).status == .forbidden)

            // Another guest signing into the same account keeps being a guest of their own: an account is one guest
            let other = try await app.guestToken(code: code, name: "Someone")
            _ = try await app.call(
                .post, "/api/v1/sessions", body: LoginRequest(email: "noa@example.com", password: "correct horse"), token: other)
            let still = try (try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code, name: "Noa"), token: account))
                .decode(JoinResult.self)
            #expect(still.guest.id == again.guest.id)
        }
    }
}
