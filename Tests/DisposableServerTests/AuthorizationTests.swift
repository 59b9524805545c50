import Crypto
import DisposableAPI
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

/// SEC-1 for the routes of this stage: every route × every role, with the status each must get.
@Suite("Authorization matrix (SEC-1)")
struct AuthorizationTests {
    enum Role: String, CaseIterable, Sendable {
        case anonymous, guestOfThisEvent, guestOfAnotherEvent, organizer, otherUser, admin
        /// Made an organizer of the event by the owner's invitation (ORG-5).
        case coOrganizer
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
        /// A co-organizer's status where it differs from the rule of `status(of:)`.
        var coOrganizer: HTTPResponse.Status? = nil
        var testDescription: String { "\(method) \(path)" }

        /// What `role` must get. A co-organizer gets what the owner gets on the event's routes, and what another
        /// account gets on the owner's own things (their library, capsules, friends, devices…), unless the row says.
        func status(of role: Role) -> HTTPResponse.Status? {
            guard role == .coOrganizer else { return expected[role] }
            if let coOrganizer { return coOrganizer }
            let ownersOwn = [
                "{asset}", "{month}", "{capsule}", "{friend}", "{device}", "{appPassword}", "{moment}", "{upload}", "{ticket}", "{user}",
                "/api/v1/me/", "/api/v1/library", "/api/v1/board", "/api/v1/friends", "/api/v1/moments",
            ]
            return expected[ownersOwn.contains { path.contains($0) } ? .otherUser : .organizer]
        }
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

    /// Every route: the event side (`AuthorizationTests+EventRows`), then people, libraries and the rest
    /// (`AuthorizationTests+PeopleRows`).
    static let rows: [Row] = eventRows + peopleRows

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
                case .coOrganizer: token = try await app.coOrganizer(of: event["id"] as! String, owner: organizer).token
                case .otherUser: token = try await app.userToken()
                case .admin:
                    let email = "admin-\(suffix)@example.com"
                    _ = try await app.services.accounts.createAdmin(email: email, password: "password", name: nil)
                    token = try #require(
                        try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: email, password: "password")).string("token"))
                }
                var path = row.path.replacingOccurrences(of: "{id}", with: event["id"] as! String)
                    .replacingOccurrences(of: "{token}", with: String(repeating: "A", count: 43))
                    .replacingOccurrences(of: "{session}", with: "0123456789abcdef")
                path = try await app.fillGuestAndWall(path, event: event, organizer: organizer)
                if path.contains("{coOrganizer}") {
                    let other = try await app.coOrganizer(of: event["id"] as! String, owner: organizer)
                    path = path.replacingOccurrences(of: "{coOrganizer}", with: other.id)
                }
                if path.contains("{invitation}") {
                    let made = try await app.call(.post, "/api/v1/events/\(event["id"] as! String)/co-organizers/invitations", token: organizer)
                    path = path.replacingOccurrences(of: "{invitation}", with: try #require(made.string("token"), "\(made.text)"))
                }
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
                    #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: email), token: friend).status == .accepted)
                    path = path.replacingOccurrences(
                        of: "{friend}",
                        with: try #require(((try await app.call(.get, "/api/v1/me", token: friend))["user"] as? [String: Any])?["id"] as? String))
                }
                if path.contains("{device}") {
                    let keys = [
                        "p256dh": WebPushMessage.base64URL(P256.KeyAgreement.PrivateKey().publicKey.x963Representation),
                        "auth": "AAAAAAAAAAAAAAAAAAAAAA",
                    ]
                    let device = try await app.call(
                        .post, "/api/v1/push/subscriptions", json: ["endpoint": "https://push.example.invalid/\(UUID())", "keys": keys],
                        token: organizer)
                    path = path.replacingOccurrences(of: "{device}", with: try #require(device.string("id"), "\(device.text)"))
                }
                if path.contains("{appPassword}") {
                    let made = try await app.call(
                        .post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "Phone", currentPassword: "correct horse"), token: organizer)
                    path = path.replacingOccurrences(of: "{appPassword}", with: try #require(made.string("id"), "\(made.text)"))
                }
                if path.contains("{moment}") {
                    let moment = try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Mine"), token: organizer)
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
                #expect(response.status == row.status(of: role), "\(row.method) \(row.path) as \(role): \(response.text)")
                if response.status.code >= 400 {
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }

    @Test("Every registered route has a row in the matrix")
    func everyRouteIsCovered() async throws {
        try await TestApp.run(.sqlite) { app in
            // Each row's path with its parameter named as the router names it.
            let parameters = [
                "{photo}", "{user}", "{ticket}", "{upload}", "{asset}", "{comment}", "{video}", "{moment}", "{friend}", "{capsule}", "{device}",
                "{appPassword}",
            ]
            let covered = Set(
                Self.rows.map { (row: Row) -> String in
                    var path: String = row.path.replacingOccurrences(of: "?year=2026", with: "")
                    for parameter in parameters { path = path.replacingOccurrences(of: parameter, with: "{id}") }
                    return "\(row.method.rawValue) \(path)"
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
