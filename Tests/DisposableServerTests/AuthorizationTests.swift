import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableServer

/// SEC-1 for the routes of this stage: every route × every role, with the status each must get.
@Suite("Authorization matrix (SEC-1)")
struct AuthorizationTests {
    enum Role: String, CaseIterable, Sendable {
        case anonymous, guestOfThisEvent, guestOfAnotherEvent, organizer, otherUser, admin
    }

    struct Row: @unchecked Sendable, CustomTestStringConvertible {
        let method: HTTPRequest.Method
        let path: String
        var json: [String: Any]? = nil
        /// Sent as it is.
        var raw: String? = nil
        /// Send a fresh JPEG as the body.
        var image = false
        var headers: HTTPFields = [:]
        let expected: [Role: HTTPResponse.Status]
        var testDescription: String { "\(method) \(path)" }
    }

    static func statuses(
        _ anonymous: HTTPResponse.Status, _ guest: HTTPResponse.Status, _ otherGuest: HTTPResponse.Status,
        _ organizer: HTTPResponse.Status, _ otherUser: HTTPResponse.Status, _ admin: HTTPResponse.Status
    ) -> [Role: HTTPResponse.Status] {
        [
            .anonymous: anonymous, .guestOfThisEvent: guest, .guestOfAnotherEvent: otherGuest, .organizer: organizer,
            .otherUser: otherUser, .admin: admin,
        ]
    }

    static let rows: [Row] = [
        Row(method: .get, path: "/api/v1/events/{id}", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .patch, path: "/api/v1/events/{id}", json: ["name": "New name"],
            expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(method: .delete, path: "/api/v1/events/{id}", expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound)),
        Row(method: .post, path: "/api/v1/events/{id}/end", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/qr.png", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/qr.svg", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}/membership",
            expected: statuses(.unauthorized, .noContent, .notFound, .conflict, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/events/{id}/membership/link",
            expected: statuses(.unauthorized, .created, .notFound, .conflict, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}/membership/link",
            expected: statuses(.unauthorized, .noContent, .notFound, .conflict, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events", expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/events", json: ["name": "Mine"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .created, .created, .created)),
        Row(method: .get, path: "/api/v1/me", expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .delete, path: "/api/v1/sessions/current",
            expected: statuses(.unauthorized, .noContent, .noContent, .noContent, .noContent, .noContent)),
        Row(method: .get, path: "/status", expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        Row(method: .get, path: "/healthz", expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        // Loopback clients may read it too (MetricsTests); the router tests' client is not one.
        Row(method: .get, path: "/metrics", expected: statuses(.forbidden, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        Row(method: .get, path: "/api/v1/openapi.json", expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/users", json: ["email": "new-{role}@example.com", "password": "password"],
            expected: statuses(.created, .created, .created, .created, .created, .created)),
        Row(
            method: .post, path: "/api/v1/sessions", json: ["email": "member@example.com", "password": "password"],
            expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/join", json: ["code": "{code}", "name": "Someone"],
            expected: statuses(.created, .created, .created, .created, .created, .created)),
        Row(
            method: .post, path: "/api/v1/events/{id}/photos", image: true,
            expected: statuses(.unauthorized, .created, .notFound, .created, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/events/{id}/photos/check", json: ["sha256": [String]()],
            expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/photos", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/stats", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        // CAP-3: an account's own moments ({moment} is the organizer's).
        Row(method: .get, path: "/api/v1/moments", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/moments", json: ["text": "A good day"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .created, .created, .created)),
        Row(method: .get, path: "/api/v1/moments/recap?year=2026", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .delete, path: "/api/v1/moments/{moment}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        // CAP-2: an account's own capsules ({month} is the organizer's, released with one photo).
        Row(method: .get, path: "/api/v1/library/capsules", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .get, path: "/api/v1/library/capsules/{month}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .patch, path: "/api/v1/library/capsules/{month}", json: ["quote": "Ours"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/capsules/{month}/candidates",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/capsules/{month}/collage.jpg",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        // The Story Board ({capsule} is the organizer's, shared, with one photo {photoID} and one comment of hers {commentID}).
        Row(
            method: .put, path: "/api/v1/library/capsules/{month}/share",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/library/capsules/{month}/share",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/board", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        // No clip yet: the owner hears there is none, others that there is nothing for them.
        Row(
            method: .get, path: "/api/v1/board/{capsule}/clip.m4a",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/capsules/{month}/clip.m4a",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/library/capsules/{month}/clip",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        Row(
            method: .put, path: "/api/v1/library/capsules/{month}/clip", raw: "not a sound",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .unsupportedMediaType, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/board/{capsule}", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/board/{capsule}/photos/{photoID}/thumbnail",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/board/{capsule}/photos/{photoID}/preview",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .put, path: "/api/v1/board/{capsule}/reaction", json: ["emoji": "❤️"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/board/{capsule}/reaction",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/board/{capsule}/comments", json: ["text": "Lovely"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .created, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/board/{capsule}/comments/{commentID}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        // Friends ({friend} has asked the organizer).
        Row(method: .get, path: "/api/v1/friends", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/friends", json: ["username": "nobodyhere"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/friends/{friend}/accept",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/friends/{friend}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        // CAP-1, on an event with a ready photo that has not ended: its guest waits (no collage yet), its organizer previews.
        Row(method: .get, path: "/api/v1/events/{id}/recap", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/events/{id}/recap/collage.jpg",
            expected: statuses(.unauthorized, .notFound, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/archive.zip", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/photos/{photo}", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/photos/{photo}",
            expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound)),
        // Only its shooter (here the organizer) captions a photo (SOC-1); `CaptionTests` has the organizer and a
        // guest refused on a guest's photo.
        Row(
            method: .patch, path: "/api/v1/photos/{photo}", json: ["caption": "Hello"],
            expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        // The guestbook (SOC-1, SOC-2): whoever sees a post (here the organizer's) writes under it and likes it;
        // {comment} is the organizer's, which a guest may not take down.
        Row(method: .get, path: "/api/v1/events/{id}/notes", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/events/{id}/notes", json: ["text": "Congratulations!"],
            expected: statuses(.unauthorized, .created, .notFound, .created, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/photos/{photo}/comments", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/photos/{photo}/comments", json: ["text": "Lovely"],
            expected: statuses(.unauthorized, .created, .notFound, .created, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/comments/{comment}",
            expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound)),
        Row(method: .put, path: "/api/v1/photos/{photo}/like", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .delete, path: "/api/v1/photos/{photo}/like", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        // SOC-3: everyone signed in has notifications of their own (`NotificationTests`: nobody reads or marks another's).
        Row(method: .get, path: "/api/v1/notifications", expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(method: .post, path: "/api/v1/notifications/read", json: [:], expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/photos/{photo}/approve", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)
        ),
        Row(method: .get, path: "/api/v1/photos/{photo}/original", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/photos/{photo}/preview", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/photos/{photo}/thumbnail", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        // SOC-4: {video} is a guest's video post, played by whoever sees it.
        Row(method: .get, path: "/api/v1/photos/{video}/video", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        // A signed link is the grant itself: whoever holds it gets the file; a forged one gets nothing.
        Row(method: .get, path: "/api/v1/media/{event}/{photo}/{file}", expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .get, path: "/api/v1/media/{id}/{photo}/thumbnail.jpg?until=4102444800&sig=0123456789abcdef0123456789abcdef",
            expected: statuses(.forbidden, .forbidden, .forbidden, .forbidden, .forbidden, .forbidden)),
        // The JSON form of the feed: the stream form never ends, which a router test cannot wait for.
        Row(
            method: .get, path: "/api/v1/events/{id}/changes", headers: [.accept: "application/json"],
            expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/guests", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}/guests/{guest}",
            expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/events/{id}/wall", expected: statuses(.unauthorized, .forbidden, .notFound, .created, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}/wall",
            expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound)
        ),
        // The wall link is the grant: whoever holds it sees what guests see, signed in or not.
        Row(method: .get, path: "/api/v1/walls/{key}/photos", expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .get, path: "/api/v1/walls/{key}/changes", headers: [.accept: "application/json"],
            expected: statuses(.ok, .ok, .ok, .ok, .ok, .ok)),
        Row(method: .get, path: "/api/v1/admin/deletions", expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        // ADM-4..6: the admin's alone; `{user}` is another account.
        Row(method: .get, path: "/api/v1/admin/users", expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        Row(
            method: .post, path: "/api/v1/admin/users", json: ["email": "added-{role}@example.com", "password": "password"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .created)),
        Row(
            method: .patch, path: "/api/v1/admin/users/{user}", json: ["quotaBytes": 1_000_000],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        Row(
            method: .delete, path: "/api/v1/admin/users/{user}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .noContent)),
        Row(method: .get, path: "/api/v1/admin/settings", expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        Row(
            method: .patch, path: "/api/v1/admin/settings", json: ["registrationEnabled": true],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        Row(method: .get, path: "/api/v1/admin/stats", expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        // ADM-3: asking is open to all and says nothing; a made-up link finds nothing; the admin's link is theirs.
        Row(
            method: .post, path: "/api/v1/password-resets", json: ["email": "{role}@example.com"],
            expected: statuses(.accepted, .accepted, .accepted, .accepted, .accepted, .accepted)),
        Row(
            method: .post, path: "/api/v1/password-resets/{token}", json: ["password": "a new password"],
            expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        // ADM-3: a made-up confirmation link opens no account, whoever follows it.
        Row(
            method: .post, path: "/api/v1/registrations/{token}",
            expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/admin/users/{user}/password-reset",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .created)),
        // Accounts made here have "correct horse"; the admin's is "password", so theirs is refused as wrong.
        Row(
            method: .post, path: "/api/v1/me/password", json: ["currentPassword": "correct horse", "newPassword": "another horse"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .noContent, .forbidden)),
        // Issue 22, item 7: an account's own sessions; a made-up or someone else's session id is not found.
        Row(method: .get, path: "/api/v1/me/sessions", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .delete, path: "/api/v1/me/sessions",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .noContent, .noContent)),
        Row(
            method: .delete, path: "/api/v1/me/sessions/{session}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        // SUP-2: anyone writes; the admin reads and closes.
        Row(
            method: .post, path: "/api/v1/support/tickets", json: ["subject": "Help", "message": "Where are my photos?"],
            expected: statuses(.created, .created, .created, .created, .created, .created)),
        Row(method: .get, path: "/api/v1/admin/tickets", expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        Row(
            method: .patch, path: "/api/v1/admin/tickets/{ticket}", json: ["status": "closed"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
        // SUP-4: my own data; an account is erased only with its own address typed (here a wrong one).
        Row(method: .get, path: "/api/v1/me/export", expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .delete, path: "/api/v1/me", json: ["confirmEmail": "not-mine@example.com"],
            expected: statuses(.unauthorized, .noContent, .noContent, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        // SOC-5: an account's own profile; a JSON body is no picture (415). Pictures are seen by whoever is signed in.
        Row(
            method: .patch, path: "/api/v1/me", json: ["name": "New name"], expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .patch, path: "/api/v1/me", json: ["appearance": "dark"], expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)
        ),
        Row(
            method: .put, path: "/api/v1/me/avatar", json: ["not": "a picture"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .unsupportedMediaType, .unsupportedMediaType, .unsupportedMediaType)),
        Row(
            method: .delete, path: "/api/v1/me/avatar", expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .noContent, .noContent)),
        Row(
            method: .get, path: "/api/v1/users/{user}/avatar.jpg",
            expected: statuses(.unauthorized, .notFound, .notFound, .notFound, .notFound, .notFound)),
        // UP-4: tus. Creating needs a member of a live event; an upload is its sender's alone.
        Row(method: .options, path: "/api/v1/uploads", expected: statuses(.noContent, .noContent, .noContent, .noContent, .noContent, .noContent)),
        Row(
            method: .post, path: "/api/v1/uploads",
            headers: [.init("Tus-Resumable")!: "1.0.0", .init("Upload-Length")!: "100", .init("Upload-Metadata")!: "event {id-base64}"],
            expected: statuses(.unauthorized, .created, .notFound, .created, .notFound, .notFound)),
        Row(
            method: .head, path: "/api/v1/uploads/{upload}", headers: [.init("Tus-Resumable")!: "1.0.0"],
            expected: statuses(.unauthorized, .notFound, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .patch, path: "/api/v1/uploads/{upload}", raw: "first bytes",
            headers: [.init("Tus-Resumable")!: "1.0.0", .contentType: "application/offset+octet-stream", .init("Upload-Offset")!: "0"],
            expected: statuses(.unauthorized, .notFound, .notFound, .noContent, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/uploads/{upload}", headers: [.init("Tus-Resumable")!: "1.0.0"],
            expected: statuses(.unauthorized, .notFound, .notFound, .noContent, .notFound, .notFound)),
        // The personal library (LIB-*): accounts only; {asset} is the organizer's own, ready.
        Row(
            method: .post, path: "/api/v1/library/assets", image: true,
            expected: statuses(.unauthorized, .forbidden, .forbidden, .created, .created, .created)),
        Row(method: .get, path: "/api/v1/library/assets", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .get, path: "/api/v1/library/assets/{asset}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/library/assets/{asset}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/library/assets/{asset}/restore",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .put, path: "/api/v1/library/assets/{asset}/original", image: true,
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/assets/{asset}/original",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/assets/{asset}/preview",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/assets/{asset}/thumbnail",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .notFound, .notFound)),
        // An image is not a video (415 for the owner); the asset has no motion (404): LibraryTests does the rest.
        Row(
            method: .put, path: "/api/v1/library/assets/{asset}/video", image: true,
            expected: statuses(.unauthorized, .forbidden, .forbidden, .unsupportedMediaType, .notFound, .notFound)),
        Row(
            method: .get, path: "/api/v1/library/assets/{asset}/video",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        Row(
            method: .post, path: "/api/v1/library/check", json: ["sha256": [String(repeating: "a", count: 64)]],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(method: .get, path: "/api/v1/library/trash", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(method: .delete, path: "/api/v1/library/trash", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(method: .get, path: "/api/v1/library/changes", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/photos/{photo}/save-to-library",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .created, .notFound, .notFound)),
    ]

    @Test("Each route answers each role as expected", arguments: TestEngine.allCases, rows)
    func matrix(engine: TestEngine, row: Row) async throws {
        try await TestApp.run(engine) { app in
            _ = try await app.userToken(email: "member@example.com", password: "password")
            for role in Role.allCases {
                // setup: a fresh event and fresh identities for each role, since some routes delete or log out
                let suffix = UUID().uuidString.prefix(8)
                let organizer = try await app.userToken()
                let event = try await app.createEvent(token: organizer)
                let other = try await app.createEvent(token: try await app.userToken())
                let token: String?
                switch role {
                case .anonymous: token = nil
                case .guestOfThisEvent: token = try await app.guestToken(code: event["code"] as! String)
                case .guestOfAnotherEvent: token = try await app.guestToken(code: other["code"] as! String)
                case .organizer: token = organizer
                case .otherUser: token = try await app.userToken()
                case .admin:
                    let email = "admin-\(suffix)@example.com"
                    _ = try await app.services.accounts.createAdmin(email: email, password: "password", name: nil)
                    token = try #require(
                        try await app.call(.post, "/api/v1/sessions", json: ["email": email, "password": "password"]).string("token"))
                }
                var path = row.path.replacingOccurrences(of: "{id}", with: event["id"] as! String)
                    .replacingOccurrences(of: "{token}", with: String(repeating: "A", count: 43))
                    .replacingOccurrences(of: "{session}", with: "0123456789abcdef")
                path = try await app.fillGuestAndWall(path, event: event, organizer: organizer)
                if path.contains("{ticket}") {
                    let ticket = try await app.call(.post, "/api/v1/support/tickets", json: ["subject": "Hi", "message": "A question"])
                    path = path.replacingOccurrences(of: "{ticket}", with: try #require(ticket.string("id")))
                }
                if path.contains("{user}") {
                    let victim = try await app.call(.get, "/api/v1/me", token: try await app.userToken())
                    path = path.replacingOccurrences(of: "{user}", with: try #require((victim["user"] as? [String: Any])?["id"] as? String))
                }
                if path.contains("{photo}") {
                    // A ready photo taken by the organizer.
                    let photo = try await app.upload(
                        try await TestImages.jpeg(width: 64, height: 48), event: event["id"] as! String, token: organizer)
                    let id = try #require(photo.string("id"))
                    _ = try await app.waitUntilProcessed(id, token: organizer)
                    path = path.replacingOccurrences(of: "{photo}", with: id)
                    if path.contains("{file}") {
                        // The signed thumbnail link the organizer's API answer holds.
                        let urls = try await app.call(.get, "/api/v1/photos/\(id)", token: organizer)["urls"] as? [String: Any]
                        path = try #require(urls?["thumbnail"] as? String)
                    }
                }
                if path.contains("{month}") || path.contains("{capsule}") {
                    // One library photo of last month, and its capsule released.
                    let month = CapsuleMonth(containing: app.clock.now, in: .gmt).previous
                    let uploaded = try await app.uploadToLibrary(
                        try await TestImages.jpeg(width: 64, height: 48), token: organizer, takenAt: "\(month.text)-15T12:00:00Z")
                    _ = try await app.waitUntilAssetProcessed(try #require(uploaded.string("id")), token: organizer)
                    app.clock.advance(by: CapsuleService.settling)
                    try await app.services.capsules.releaseDue()
                    path = path.replacingOccurrences(of: "{month}", with: month.text)
                    if path.contains("{capsule}") {
                        #expect(try await app.call(.put, "/api/v1/library/capsules/\(month.text)/share", token: organizer).status == .ok)
                        let shared = try #require((try await app.call(.get, "/api/v1/board", token: organizer)["items"] as? [[String: Any]])?.first)
                        path = path.replacingOccurrences(of: "{capsule}", with: try #require(shared["id"] as? String))
                        path = path.replacingOccurrences(
                            of: "{photoID}", with: try #require((shared["photos"] as? [[String: Any]])?.first?["id"] as? String))
                        if path.contains("{commentID}") {
                            let commented = try await app.call(
                                .post, "/api/v1/board/\(shared["id"] as! String)/comments", json: ["text": "Mine"], token: organizer)
                            let comment = try #require((commented["comments"] as? [[String: Any]])?.first?["id"] as? String)
                            path = path.replacingOccurrences(of: "{commentID}", with: comment)
                        }
                    }
                }
                if path.contains("{friend}") {
                    let friend = try await app.userToken()
                    let email = try #require(
                        ((try await app.call(.get, "/api/v1/me", token: organizer))["user"] as? [String: Any])?["email"] as? String)
                    #expect(try await app.call(.post, "/api/v1/friends", json: ["email": email], token: friend).status == .accepted)
                    path = path.replacingOccurrences(
                        of: "{friend}",
                        with: try #require(((try await app.call(.get, "/api/v1/me", token: friend))["user"] as? [String: Any])?["id"] as? String))
                }
                if path.contains("{moment}") {
                    let moment = try await app.call(.post, "/api/v1/moments", json: ["text": "Mine"], token: organizer)
                    path = path.replacingOccurrences(of: "{moment}", with: try #require(moment.string("id")))
                }
                if path.contains("/events/") && path.contains("/recap") {
                    let photo = try await app.upload(
                        try await TestImages.jpeg(width: 64, height: 48), event: event["id"] as! String, token: organizer)
                    _ = try await app.waitUntilProcessed(try #require(photo.string("id")), token: organizer)
                }
                if path.contains("{video}") {
                    // A ready video by a guest of the event, which now takes videos.
                    let id = event["id"] as! String
                    #expect(try await app.call(.patch, "/api/v1/events/\(id)", json: ["allowVideos": true], token: organizer).status == .ok)
                    let guest = try await app.guestToken(code: event["code"] as! String, name: "Vi")
                    let video = try await app.upload(try await TestVideos.make("mp4", seconds: 1), event: id, token: guest)
                    let videoID = try #require(video.string("id"), "\(video.text)")
                    _ = try await app.waitUntilProcessed(videoID, token: guest, timeout: .seconds(120))
                    path = path.replacingOccurrences(of: "{video}", with: videoID)
                }
                if path.contains("{comment}") {
                    // The organizer's comment on their own photo.
                    let photo = try await app.upload(
                        try await TestImages.jpeg(width: 64, height: 48), event: event["id"] as! String, token: organizer)
                    let id = try #require(photo.string("id"))
                    _ = try await app.waitUntilProcessed(id, token: organizer)
                    let comment = try await app.call(.post, "/api/v1/photos/\(id)/comments", json: ["text": "Mine"], token: organizer)
                    path = path.replacingOccurrences(of: "{comment}", with: try #require(comment.string("id")))
                }
                if path.contains("{asset}") {
                    // A ready asset of the organizer's own library.
                    let asset = try await app.uploadToLibrary(try await TestImages.jpeg(width: 64, height: 48), token: organizer)
                    let id = try #require(asset.string("id"))
                    _ = try await app.waitUntilAssetProcessed(id, token: organizer)
                    path = path.replacingOccurrences(of: "{asset}", with: id)
                }
                if path.contains("{upload}") {
                    // An upload the organizer began.
                    var headers: HTTPFields = [
                        .init("Tus-Resumable")!: "1.0.0", .init("Upload-Length")!: "100", .authorization: "Bearer \(organizer)",
                    ]
                    headers[.init("Upload-Metadata")!] = "event " + Data((event["id"] as! String).utf8).base64EncodedString()
                    let created = try await app.send("/api/v1/uploads", method: .post, headers: headers, body: nil)
                    path = path.replacingOccurrences(of: "{upload}", with: try #require(created.headers[.location]?.split(separator: "/").last))
                }
                var headers = row.headers
                for field in row.headers where field.value.contains("{id-base64}") {
                    headers[field.name] = field.value.replacingOccurrences(
                        of: "{id-base64}", with: Data((event["id"] as! String).utf8).base64EncodedString())
                }
                let json = row.json?.mapValues { value -> Any in
                    guard let text = value as? String else { return value }
                    return text.replacingOccurrences(of: "{code}", with: event["code"] as! String).replacingOccurrences(
                        of: "{role}", with: "\(role)-\(suffix)")
                }
                // MUT
                let response: APIResponse
                if row.image, path.hasPrefix("/api/v1/library/") {
                    let image = try await TestImages.jpeg(width: 64, height: 48)
                    response = try await app.call(row.method, path, token: token, headers: [.contentType: "image/jpeg"], body: image)
                } else if row.image {
                    response = try await app.upload(try await TestImages.jpeg(width: 64, height: 48), event: event["id"] as! String, token: token)
                } else {
                    response = try await app.call(row.method, path, json: json, raw: row.raw, token: token, headers: headers)
                }
                // validate
                #expect(response.status == row.expected[role], "\(row.method) \(row.path) as \(role): \(response.text)")
                if response.status.code >= 400 {
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }

    @Test("Every registered route has a row in the matrix")
    func everyRouteIsCovered() async throws {
        try await TestApp.run(.sqlite) { app in
            let covered = Set(
                Self.rows.map {
                    "\($0.method.rawValue) \($0.path.replacingOccurrences(of: "{photo}", with: "{id}").replacingOccurrences(of: "{user}", with: "{id}").replacingOccurrences(of: "{ticket}", with: "{id}").replacingOccurrences(of: "{upload}", with: "{id}").replacingOccurrences(of: "{asset}", with: "{id}").replacingOccurrences(of: "{comment}", with: "{id}").replacingOccurrences(of: "{video}", with: "{id}").replacingOccurrences(of: "{moment}", with: "{id}").replacingOccurrences(of: "{friend}", with: "{id}").replacingOccurrences(of: "{capsule}", with: "{id}").replacingOccurrences(of: "?year=2026", with: ""))"
                })
            let pages: Set<String> = ["GET /setup", "POST /setup"]  // covered by SetupTests
            for route in registeredRoutes(app.services) where !pages.contains(route) {
                #expect(covered.contains(route), "\(route) has no row in the authorization matrix")
            }
        }
    }
}

/// "METHOD /path/{param}" for every API route the router knows (the web app's pages have their own matrix).
func registeredRoutes(_ services: AppServices) -> [String] {
    allRoutes(services).filter { !isWebPage($0) }
}

/// The web app's pages: everything outside the API, the status endpoints and the setup wizard.
func isWebPage(_ route: String) -> Bool {
    let path = String(route.split(separator: " ")[1])
    return !path.hasPrefix("/api/") && !["/status", "/healthz", "/setup", "/metrics"].contains(path)
}

func allRoutes(_ services: AppServices) -> [String] {
    buildRouter(services: services).routes.map { route in
        let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
        return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
    }
}
