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

/// The web app's pages at the HTTP level: who may open what, forms, cookies, escaping,
/// CSRF and the catalogues. The browser-level behaviour is in Tests/web/test_web.py (real Chromium).
@Suite("Web pages")
struct WebPagesTests {
    typealias Role = AuthorizationTests.Role

    struct PageRow: @unchecked Sendable, CustomTestStringConvertible {
        let method: HTTPRequest.Method
        let path: String
        var form: String? = nil
        let expected: [Role: HTTPResponse.Status]
        /// A co-organizer's status where it differs from the owner's (on an event's pages) or another account's (elsewhere).
        var coOrganizer: HTTPResponse.Status? = nil
        var testDescription: String { "\(method) \(path)" }

        func status(of role: Role) -> HTTPResponse.Status? {
            guard role == .coOrganizer else { return expected[role] }
            let eventsPage = path.hasPrefix("/events/{id}") || path.hasPrefix("/e/{code}")
            return coOrganizer ?? expected[eventsPage ? .organizer : .otherUser]
        }
    }

    static func statuses(
        _ anonymous: HTTPResponse.Status, _ guest: HTTPResponse.Status, _ otherGuest: HTTPResponse.Status,
        _ organizer: HTTPResponse.Status, _ otherUser: HTTPResponse.Status, _ admin: HTTPResponse.Status
    ) -> [Role: HTTPResponse.Status] {
        AuthorizationTests.statuses(anonymous, guest, otherGuest, organizer, otherUser, admin)
    }

    static let all200 = statuses(.ok, .ok, .ok, .ok, .ok, .ok)
    static let all303 = statuses(.seeOther, .seeOther, .seeOther, .seeOther, .seeOther, .seeOther)
    /// Pages of one event for those who joined it (others are sent to its join form).
    static let members = statuses(.seeOther, .ok, .seeOther, .ok, .seeOther, .seeOther)
    /// The organizer's pages: sign in first; other accounts cannot even confirm the event exists.
    static let organizerOnly = statuses(.seeOther, .seeOther, .seeOther, .ok, .notFound, .notFound)
    static let organizerWrites = statuses(.seeOther, .seeOther, .seeOther, .seeOther, .notFound, .notFound)
    static let accounts = statuses(.seeOther, .seeOther, .seeOther, .ok, .ok, .ok)
    static let adminOnly = statuses(.seeOther, .seeOther, .seeOther, .forbidden, .forbidden, .ok)
    static let adminWrites = statuses(.seeOther, .seeOther, .seeOther, .forbidden, .forbidden, .seeOther)

    /// SEC-1 for pages: every page route × every role, with the session cookie as a browser sends it.
    static let rows: [PageRow] = [
        PageRow(method: .get, path: "/", expected: all200),
        PageRow(method: .get, path: "/join?code={code}", expected: all303),
        PageRow(method: .get, path: "/e/{code}", expected: all200),
        PageRow(method: .post, path: "/e/{code}/join", form: "name=Maggie&terms=\(TermsOfUse.version)", expected: all303),
        PageRow(method: .get, path: "/e/{code}/camera", expected: members),
        PageRow(method: .get, path: "/e/{code}/mine", expected: members),
        PageRow(method: .get, path: "/e/{code}/recap", expected: members),
        // The organizer goes on to the wall link; everyone else to the event's page.
        PageRow(method: .get, path: "/e/{code}/wall", expected: all303),
        // The wall link opens for anyone who holds it (a venue screen nobody signs in on).
        PageRow(method: .get, path: "/w/{key}", expected: all200),
        PageRow(method: .get, path: "/e/{code}/continue", expected: statuses(.seeOther, .ok, .seeOther, .seeOther, .seeOther, .seeOther)),
        PageRow(method: .post, path: "/e/{code}/leave", expected: all303),
        PageRow(method: .post, path: "/e/{code}/name", form: "name=Margaret", expected: all303),
        PageRow(method: .get, path: "/c/{token}", expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(method: .post, path: "/c/{token}", expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(method: .post, path: "/e/{code}/continue/stop", expected: all303),
        PageRow(method: .get, path: "/login", expected: all200),
        PageRow(method: .post, path: "/login", form: "email=member%40example.com&password=password", expected: all303),
        PageRow(method: .get, path: "/register", expected: all200),
        PageRow(
            method: .post, path: "/register", form: "email=new-{role}%40example.com&password=password1&terms=\(TermsOfUse.version)", expected: all303),
        PageRow(method: .post, path: "/logout", expected: all303),
        PageRow(method: .get, path: "/events", expected: accounts),
        PageRow(method: .get, path: "/events/new", expected: accounts),
        PageRow(
            method: .post, path: "/events/new", form: "name=Party&shotsPerGuest=5&revealMode=now",
            expected: statuses(.seeOther, .seeOther, .seeOther, .seeOther, .seeOther, .seeOther)),
        PageRow(method: .get, path: "/events/{id}", expected: organizerOnly),
        PageRow(method: .post, path: "/events/{id}/settings", form: "name=Renamed&shotsPerGuest=27&revealMode=now", expected: organizerWrites),
        PageRow(method: .post, path: "/events/{id}/end", expected: organizerWrites),
        PageRow(
            method: .post, path: "/events/{id}/delete", form: "confirm=Ana+%26+Ben%27s+wedding", expected: organizerWrites, coOrganizer: .forbidden),
        // Co-organizers (ORG-5): the owner invites (the page shows the link) and removes; a made-up invitation opens nothing.
        PageRow(
            method: .post, path: "/events/{id}/co-organizers/invite", expected: statuses(.seeOther, .seeOther, .seeOther, .ok, .notFound, .notFound),
            coOrganizer: .forbidden),
        PageRow(method: .post, path: "/events/{id}/co-organizers/{organizer}/remove", expected: organizerWrites, coOrganizer: .forbidden),
        PageRow(method: .get, path: "/co-organize/{token}", expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(
            method: .post, path: "/co-organize/{token}", expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)),
        PageRow(method: .get, path: "/events/{id}/card", expected: organizerOnly),
        PageRow(method: .post, path: "/events/{id}/guests/{guest}/remove", form: "photos=true", expected: organizerWrites),
        PageRow(method: .post, path: "/events/{id}/wall", expected: organizerWrites),
        PageRow(method: .post, path: "/events/{id}/wall/off", expected: organizerWrites),
        // The admin panel (ADM-4): sign in first; other accounts get a friendly "admins only".
        PageRow(method: .get, path: "/admin", expected: adminOnly),
        PageRow(method: .post, path: "/admin/settings", form: "registration=on", expected: adminWrites),
        PageRow(method: .post, path: "/admin/users", form: "email=added-{role}%40example.com&password=password1", expected: adminWrites),
        PageRow(method: .post, path: "/admin/users/{user}/quota", form: "quotaGB=2.5", expected: adminWrites),
        PageRow(method: .post, path: "/admin/users/{user}/delete", form: "confirmed=1", expected: adminWrites),
        PageRow(method: .post, path: "/admin/users/{user}/reset-link", expected: adminOnly),
        PageRow(method: .get, path: "/forgot", expected: all200),
        PageRow(method: .post, path: "/forgot", form: "email={role}%40example.com", expected: all200),
        // A made-up sign-up link opens no account, whoever follows it.
        PageRow(
            method: .get, path: "/register/confirm/{token}", expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(
            method: .post, path: "/register/confirm/{token}", expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(method: .get, path: "/reset/{token}", expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(
            method: .post, path: "/reset/{token}", form: "password=a+new+password&confirmation=a+new+password",
            expected: statuses(.notFound, .notFound, .notFound, .notFound, .notFound, .notFound)),
        PageRow(method: .get, path: "/account", expected: accounts),
        PageRow(method: .get, path: "/library", expected: accounts),
        PageRow(method: .get, path: "/moments", expected: accounts),
        PageRow(method: .get, path: "/capsules", expected: accounts),
        PageRow(method: .get, path: "/friends", expected: accounts),
        PageRow(method: .get, path: "/board", expected: accounts),
        // Nobody by that name, no request from that id: the page says so.
        PageRow(
            method: .post, path: "/friends", form: "who=nobodyhere",
            expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)),
        PageRow(method: .post, path: "/friends/{id}/accept", expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)),
        PageRow(method: .post, path: "/friends/{id}/remove", expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)),
        // Nobody has a capsule here: a friendly "no capsule" page for accounts.
        PageRow(method: .get, path: "/capsules/{month}", expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)),
        PageRow(method: .get, path: "/library/trash", expected: accounts),
        PageRow(method: .get, path: "/library/events", expected: accounts),
        PageRow(
            method: .post, path: "/account/password", form: "currentPassword=correct+horse&newPassword=another+horse&confirmation=another+horse",
            expected: statuses(.seeOther, .seeOther, .seeOther, .seeOther, .seeOther, .forbidden)),
        PageRow(
            method: .post, path: "/account/sessions/{session}/end",
            expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)),
        PageRow(method: .post, path: "/account/sessions/end-others", expected: all303),
        PageRow(method: .get, path: "/support", expected: all200),
        PageRow(method: .post, path: "/support", form: "subject=Help&message=Where+are+my+photos%3F", expected: all200),
        PageRow(method: .post, path: "/admin/tickets/{ticket}", form: "status=closed", expected: adminWrites),
        PageRow(method: .post, path: "/account/name", form: "name=Renamed", expected: all303),
        // Blank removes it: the same answer for every account (uniqueness is ProfileTests').
        PageRow(method: .post, path: "/account/username", form: "username=", expected: all303),
        PageRow(method: .post, path: "/account/appearance", form: "appearance=dark", expected: all303),
        PageRow(method: .post, path: "/account/time-zone", form: "timeZone=Europe%2FParis", expected: all303),
        // A Maloja link (where none answers: said on the page), phones' notices ({device}: none of theirs).
        PageRow(
            method: .post, path: "/account/scrobbler", form: "url=http%3A%2F%2F127.0.0.1%3A9&apiKey=key",
            expected: statuses(.seeOther, .seeOther, .seeOther, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        PageRow(method: .post, path: "/account/scrobbler/unlink", expected: all303),
        PageRow(method: .post, path: "/account/push-kinds", form: "kind-liked=on", expected: all303),
        PageRow(
            method: .post, path: "/account/push/{device}/remove", expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)
        ),
        // Devices: app passwords for WebDAV — made (the page shows it), a made-up id revoked is not found.
        PageRow(method: .get, path: "/account/devices", expected: accounts),
        PageRow(
            method: .post, path: "/account/devices", form: "name=Phone",
            expected: statuses(.seeOther, .seeOther, .seeOther, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        PageRow(
            method: .post, path: "/account/devices/{device}/revoke",
            expected: statuses(.seeOther, .seeOther, .seeOther, .notFound, .notFound, .notFound)
        ),
        // Sign in with OpenID Connect — the provider set here answers nowhere: said on the page (502), or on
        // My account (303); a callback without its state is refused, or sent to My account for someone signed in.
        PageRow(
            method: .post, path: "/login/openid", form: "next=/events",
            expected: statuses(.badGateway, .badGateway, .badGateway, .badGateway, .badGateway, .badGateway)),
        PageRow(
            method: .get, path: "/login/openid/callback?state=x&code=y",
            expected: statuses(.badRequest, .badRequest, .badRequest, .seeOther, .seeOther, .seeOther)),
        PageRow(method: .post, path: "/account/openid/link", expected: all303),
        PageRow(method: .post, path: "/account/openid/unlink", expected: all303),
        PageRow(method: .get, path: "/sw.js", expected: all200),
        PageRow(method: .get, path: "/my-data", expected: all200),
        PageRow(
            method: .post, path: "/my-data/delete", form: "confirm=on",
            expected: statuses(.seeOther, .seeOther, .seeOther, .unprocessableContent, .unprocessableContent, .unprocessableContent)),
        PageRow(method: .get, path: "/help", expected: all200),
        PageRow(method: .get, path: "/terms", expected: all200),
        PageRow(method: .get, path: "/privacy", expected: all200),
        PageRow(method: .get, path: "/language/{lang}", expected: all303),
        PageRow(method: .get, path: "/manifest.webmanifest", expected: all200),
        PageRow(method: .get, path: "/static/{file}", expected: all200),
    ]

    /// A provider set, so that its pages are there, where nothing answers (OpenIDTests talk to a real one).
    static func unreachableProvider(_ configuration: inout AppConfiguration) {
        configuration.openID = try? OpenIDSettings(issuer: "http://127.0.0.1:9", clientID: "matrix", clientSecret: nil, buttonLabel: nil, only: false)
    }

    @Test("Each page answers each role as expected", arguments: rows)
    func pageMatrix(row: PageRow) async throws {
        try await TestApp.run(.sqlite, configure: Self.unreachableProvider) { app in
            _ = try await app.userToken(email: "member@example.com", password: "password")
            for role in Role.allCases {
                let suffix = UUID().uuidString.prefix(8)
                let organizer = try await app.userToken()
                let event = try await app.createEvent(token: organizer)
                let other = try await app.createEvent(token: try await app.userToken())
                let token: String? =
                    switch role {
                    case .anonymous: nil
                    case .guestOfThisEvent: try await app.guestToken(code: event["code"] as! String)
                    case .guestOfAnotherEvent: try await app.guestToken(code: other["code"] as! String)
                    case .organizer: organizer
                    case .otherUser: try await app.userToken()
                    case .admin: try await app.adminToken()
                    case .coOrganizer: try await app.coOrganizer(of: event["id"] as! String, owner: organizer).token
                    }
                var path = row.path.replacingOccurrences(of: "{id}", with: event["id"] as! String)
                if path.contains("{organizer}") {
                    let other = try await app.coOrganizer(of: event["id"] as! String, owner: organizer)
                    path = path.replacingOccurrences(of: "{organizer}", with: other.id)
                }
                path = try await app.fillGuestAndWall(path, event: event, organizer: organizer)
                if path.contains("{ticket}") {
                    let ticket = try await app.call(.post, "/api/v1/support/tickets", json: ["subject": "Hi", "message": "A question"])
                    path = path.replacingOccurrences(of: "{ticket}", with: try #require(ticket.string("id")))
                }
                if path.contains("{user}") {
                    let victim = try await app.call(.get, "/api/v1/me", token: try await app.userToken())
                    path = path.replacingOccurrences(of: "{user}", with: try #require((victim["user"] as? [String: Any])?["id"] as? String))
                }
                path =
                    path
                    .replacingOccurrences(of: "{code}", with: event["code"] as! String)
                    .replacingOccurrences(of: "{token}", with: "not-a-real-link").replacingOccurrences(of: "{lang}", with: "fr")
                    .replacingOccurrences(of: "{file}", with: "app.js").replacingOccurrences(of: "{session}", with: "0123456789abcdef")
                    .replacingOccurrences(of: "{device}", with: "0123456789abcdef")
                    .replacingOccurrences(of: "{month}", with: "2026-10")
                let response = try await app.page(
                    row.method, path, cookie: token, form: row.form?.replacingOccurrences(of: "{role}", with: "\(role)-\(suffix)"))
                #expect(response.status == row.status(of: role), "\(row.method) \(row.path) as \(role): \(response.text.prefix(300))")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                if response.headers[.contentType]?.hasPrefix("text/html") == true {
                    #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
                    #expect(!response.text.contains("Missing template"))
                    #expect(!response.text.contains(">nil<") && !response.text.contains("Optional("), "a Swift optional leaked into the page")
                }
            }
        }
    }

    @Test("Every page route has a row in the page matrix")
    func everyPageIsCovered() async throws {
        try await TestApp.run(.sqlite, configure: Self.unreachableProvider) { app in
            let covered = Set(
                Self.rows.map { row in
                    let path = row.path.split(separator: "?")[0].replacingOccurrences(of: "{code}", with: "{code}")
                        .replacingOccurrences(of: "{lang}", with: "{code}").replacingOccurrences(of: "{user}", with: "{id}")
                        .replacingOccurrences(of: "{ticket}", with: "{id}")
                    return "\(row.method.rawValue) \(path)"
                })
            for route in allRoutes(app.services) where isWebPage(route) {
                #expect(covered.contains(route), "\(route) has no row in the page matrix")
            }
        }
    }
}

extension TestApp {
    /// A page request as a browser makes it: the session cookie, a form body.
    func page(
        _ method: HTTPRequest.Method, _ path: String, cookie: String? = nil, form: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> APIResponse {
        var headers = extra
        if let cookie { headers[.cookie] = "disposable_session=\(cookie)" }
        if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        return try await send(path, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) })
    }

    func adminToken() async throws -> String {
        let email = "admin-\(UUID().uuidString.prefix(8))@example.com"
        _ = try await services.accounts.createAdmin(email: email, password: "password", name: nil)
        return try #require(try await call(.post, "/api/v1/sessions", body: LoginRequest(email: email, password: "password")).string("token"))
    }
}
