import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A device's own password for WebDAV: shown once, listed with its last use, revoked alone; it opens WebDAV and
/// nothing else, and the account's password never opens WebDAV.
@Suite("App passwords")
struct AppPasswordTests {
    @Test("Made and shown once, listed without the secret, opening WebDAV with its last use noted until revoked")
    func lifecycle() async throws {
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken(email: "ana@example.com")
            let made = try await app.call(
                .post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "Ana's phone", currentPassword: "correct horse"), token: token)
            #expect(made.status == .created, "\(made.text)")
            let password = try made.decode(NewAppPasswordJSON.self)
            #expect(password.name == "Ana's phone" && password.password.count == 29)

            let listed = try await app.call(.get, "/api/v1/me/app-passwords", token: token)
            #expect(!listed.text.contains(password.password) && !listed.text.contains(password.password.replacingOccurrences(of: "-", with: "")))
            let before = try listed.decode([AppPasswordJSON].self)
            #expect(before.map(\.id) == [password.id] && before[0].lastUsedAt == nil)

            // Opens WebDAV, typed as a phone would (capitals, spaces instead of dashes); the use is noted
            let typed = password.password.uppercased().replacingOccurrences(of: "-", with: " ")
            let opened = try await app.dav("PROPFIND", "/dav/library/", email: "Ana@Example.com", password: typed, headers: [.init("Depth")!: "0"])
            #expect(opened.status == .multiStatus, "\(opened.text)")
            let after = try (try await app.call(.get, "/api/v1/me/app-passwords", token: token)).decode([AppPasswordJSON].self)
            #expect(after[0].lastUsedAt != nil && after[0].lastUsedAddress != nil)

            // It is not a session: the API refuses it as a bearer token
            #expect(try await app.call(.get, "/api/v1/me", token: password.password).status == .unauthorized)

            // Revoked: it opens nothing any more
            #expect(try await app.call(.delete, "/api/v1/me/app-passwords/\(password.id)", token: token).status == .noContent)
            let revoked = try await app.dav(
                "PROPFIND", "/dav/library/", email: "ana@example.com", password: password.password, headers: [.init("Depth")!: "0"])
            revoked.expectProblem(.unauthorized)
            #expect(revoked.headers[.wwwAuthenticate]?.hasPrefix("Basic ") == true)
            #expect(try await app.call(.delete, "/api/v1/me/app-passwords/\(password.id)", token: token).status == .notFound)
        }
    }

    @Test("The account's own password, another account's app password, none at all: 401 asking for Basic; guessing is rate-limited")
    func refused() async throws {
        try await TestApp.run(
            .sqlite,
            configure: { $0.limits.login = RateLimit(burst: 2, refillEvery: .seconds(3600)) }
        ) { app in
            let ana = try await app.userToken(email: "ana@example.com", password: "correct horse")
            let ben = try await app.userToken(email: "ben@example.com")
            let bens = try await app.appPassword(token: ben)
            _ = try await app.appPassword(token: ana)
            let depth: HTTPFields = [.init("Depth")!: "0"]
            let none = try await app.dav("PROPFIND", "/dav/library/", email: nil, password: nil, headers: depth)
            none.expectProblem(.unauthorized)
            #expect(none.headers[.wwwAuthenticate]?.contains("Basic") == true)
            let own = try await app.dav("PROPFIND", "/dav/library/", email: "ana@example.com", password: "correct horse", headers: depth)
            #expect(own.expectProblem(.unauthorized).contains("app password"))
            let others = try await app.dav("PROPFIND", "/dav/library/", email: "ana@example.com", password: bens, headers: depth)
            others.expectProblem(.unauthorized)
            // The limit of wrong log-ins holds: the next try is refused without being checked, even a right one
            let limited = try await app.dav("PROPFIND", "/dav/library/", email: "ana@example.com", password: "wrong", headers: depth)
            limited.expectProblem(.tooManyRequests)
        }
    }

    @Test("At most 20 an account; a name is required; guests and strangers make none")
    func limits() async throws {
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken()
            for index in 1...20 { _ = try await app.appPassword(token: token, name: "Device \(index)") }
            let more = try await app.call(
                .post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "One more", currentPassword: "correct horse"), token: token)
            #expect(more.expectProblem(.conflict).contains("20"))
            let blank = try await app.call(
                .post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "  ", currentPassword: "correct horse"), token: token)
            blank.expectProblem(.unprocessableContent)
            let hidden = try await app.call(
                .post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "phone\u{202E}", currentPassword: "correct horse"), token: token)
            hidden.expectProblem(.unprocessableContent)
            #expect(try await app.call(.get, "/api/v1/me/app-passwords", token: nil).status == .unauthorized)
            let event = try await app.createEvent(token: token)
            let guest = try await app.guestToken(code: event["code"] as! String)
            #expect(try await app.call(.post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "x"), token: guest).status == .forbidden)
        }
    }

    @Test("A password changed or reset ends the app passwords (kept on a change only when asked); making one asks for the password")
    func endWithThePassword() async throws {
        try await TestApp.run(.sqlite) { app in
            // setup
            let token = try await app.userToken(email: "ana@example.com", password: "correct horse")
            let depth: HTTPFields = [.init("Depth")!: "0"]
            let opens = { (secret: String) in
                try await app.dav("PROPFIND", "/dav/library/", email: "ana@example.com", password: secret, headers: depth).status
            }
            // Making one: the password typed again, right
            let none = try await app.call(.post, "/api/v1/me/app-passwords", json: ["name": "Phone"], token: token)
            #expect(none.expectProblem(.unprocessableContent).contains("current password"))
            let wrong = try await app.call(.post, "/api/v1/me/app-passwords", json: ["name": "Phone", "currentPassword": "guess"], token: token)
            wrong.expectProblem(.forbidden)
            let first = try await app.appPassword(token: token, name: "Phone")
            #expect(try await opens(first) == .multiStatus)

            // MUT: a change that keeps them, then one that does not (the default)
            let keeping = try await app.call(
                .post, "/api/v1/me/password",
                json: ["currentPassword": "correct horse", "newPassword": "battery staple", "revokeAppPasswords": false], token: token)
            #expect(keeping.status == .noContent, "\(keeping.text)")
            #expect(try await opens(first) == .multiStatus)
            let changed = try await app.call(
                .post, "/api/v1/me/password", json: ["currentPassword": "battery staple", "newPassword": "correct horse"], token: token)
            #expect(changed.status == .noContent, "\(changed.text)")

            // validate
            #expect(try await opens(first) == .unauthorized)
            #expect(try await app.call(.get, "/api/v1/me/app-passwords", token: token).decode([AppPasswordJSON].self).isEmpty)

            // A reset link (the admin's) ends them too
            let second = try await app.appPassword(token: token, name: "Laptop")
            #expect(try await opens(second) == .multiStatus)
            let admin = try await app.adminToken()
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: token))["user"] as? [String: Any])?["id"] as? String)
            let link = try await app.call(.post, "/api/v1/admin/users/\(me)/password-reset", token: admin)
            let resetURL = try #require(link.string("resetURL"), "\(link.text)")
            let resetToken = String(try #require(resetURL.split(separator: "/").last))
            let reset = try await app.call(.post, "/api/v1/password-resets/\(resetToken)", json: ["password": "a new one entirely"])
            #expect(reset.status == .noContent, "\(reset.text)")
            #expect(try await opens(second) == .unauthorized)
        }
    }
}
