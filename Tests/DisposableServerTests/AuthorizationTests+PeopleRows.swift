import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

extension AuthorizationTests {
    /// The matrix rows of notifications, media links, guests, accounts, libraries, capsules, friends and the admin.
    static let peopleRows: [Row] = [
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
        // An account's own sessions; a made-up or someone else's session id is not found.
        Row(method: .get, path: "/api/v1/me/sessions", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .delete, path: "/api/v1/me/sessions",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .noContent, .noContent)),
        Row(
            method: .delete, path: "/api/v1/me/sessions/{session}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        // An account's own app passwords for WebDAV; {appPassword} is the organizer's, so only they revoke it.
        // All my shots (JN-6): a guest's are their event's; an account's are every event it is in.
        Row(method: .get, path: "/api/v1/me/photos", expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(method: .get, path: "/api/v1/me/app-passwords", expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        // Making one asks for the account's password again: a session alone is not enough.
        Row(
            method: .post, path: "/api/v1/me/app-passwords", json: ["name": "Phone"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        Row(
            method: .post, path: "/api/v1/me/app-passwords", json: ["name": "Phone", "currentPassword": "not theirs"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .forbidden)),
        Row(
            method: .delete, path: "/api/v1/me/app-passwords/{appPassword}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .notFound, .notFound)),
        // Crash reports: anyone sends one; only the admin reads them.
        Row(
            method: .post, path: "/api/v1/client-errors", json: ["message": "x is undefined", "page": "/library"],
            expected: statuses(.noContent, .noContent, .noContent, .noContent, .noContent, .noContent)),
        Row(
            method: .get, path: "/api/v1/admin/client-errors", expected: statuses(.unauthorized, .forbidden, .forbidden, .forbidden, .forbidden, .ok)),
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
            method: .put, path: "/api/v1/uploads/{upload}/first-look", raw: "not a picture",
            headers: [.init("Tus-Resumable")!: "1.0.0", .contentType: "image/jpeg"],
            expected: statuses(.unauthorized, .notFound, .notFound, .unprocessableContent, .notFound, .notFound)),
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
}
