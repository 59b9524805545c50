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
    /// The matrix rows of events, joining, photos and the guestbook.
    static let eventRows: [Row] = [
        Row(method: .get, path: "/api/v1/events/{id}", expected: statuses(.unauthorized, .ok, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .patch, path: "/api/v1/events/{id}", json: ["name": "New name"],
            expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}", expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound),
            coOrganizer: .forbidden),
        Row(
            method: .post, path: "/api/v1/events/{id}/co-organizers/invitations",
            expected: statuses(.unauthorized, .forbidden, .notFound, .created, .notFound, .notFound), coOrganizer: .forbidden),
        Row(
            method: .get, path: "/api/v1/events/{id}/co-organizers",
            expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}/co-organizers/{coOrganizer}",
            expected: statuses(.unauthorized, .forbidden, .notFound, .noContent, .notFound, .notFound), coOrganizer: .forbidden),
        // A guest's session is not an account; the owner owns it already; a co-organizer accepting again stays one.
        Row(
            method: .post, path: "/api/v1/co-organizer-invitations/{invitation}",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .conflict, .ok, .ok), coOrganizer: .ok),
        Row(method: .post, path: "/api/v1/events/{id}/end", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/qr.png", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(method: .get, path: "/api/v1/events/{id}/qr.svg", expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound)),
        Row(
            method: .delete, path: "/api/v1/events/{id}/membership",
            expected: statuses(.unauthorized, .noContent, .notFound, .conflict, .notFound, .notFound)),
        Row(
            method: .patch, path: "/api/v1/events/{id}/membership", json: ["name": "Margaret"],
            expected: statuses(.unauthorized, .ok, .notFound, .conflict, .notFound, .notFound)),
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
        // An account's own scrobbler — none linked here; a link to where no Maloja answers is refused.
        Row(method: .get, path: "/api/v1/me/scrobbler", expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        Row(
            method: .put, path: "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": "http://127.0.0.1:9", "apiKey": "key"],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        Row(
            method: .delete, path: "/api/v1/me/scrobbler",
            expected: statuses(.unauthorized, .forbidden, .forbidden, .noContent, .noContent, .noContent)),
        // The OpenID Connect link of an account — this instance has no provider.
        Row(method: .get, path: "/api/v1/me/openid", expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        Row(method: .delete, path: "/api/v1/me/openid", expected: statuses(.unauthorized, .forbidden, .forbidden, .notFound, .notFound, .notFound)),
        // An account's or a guest's own push subscriptions ({device} is the organizer's browser); kinds are an
        // account's choice.
        Row(method: .get, path: "/api/v1/push", expected: statuses(.unauthorized, .ok, .ok, .ok, .ok, .ok)),
        Row(
            method: .put, path: "/api/v1/push/kinds", json: ["kinds": ["liked"]],
            expected: statuses(.unauthorized, .forbidden, .forbidden, .ok, .ok, .ok)),
        Row(
            method: .post, path: "/api/v1/push/subscriptions", json: ["endpoint": "ftp://push.example", "keys": ["p256dh": "x", "auth": "y"]],
            expected: statuses(
                .unauthorized, .unprocessableContent, .unprocessableContent, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        Row(
            method: .delete, path: "/api/v1/push/subscriptions/{device}",
            expected: statuses(.unauthorized, .notFound, .notFound, .noContent, .notFound, .notFound)),
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
            expected: statuses(.unauthorized, .forbidden, .notFound, .ok, .notFound, .notFound), coOrganizer: .forbidden),  // the shooter's caption
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
    ]
}
