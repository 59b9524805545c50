import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableServer

/// A device's own password for WebDAV: shown once, listed with its last use, revoked alone; it opens WebDAV and
/// nothing else, and the account's password never opens WebDAV.
@Suite("App passwords")
struct AppPasswordTests {
    @Test("Made and shown once, listed without the secret, opening WebDAV with its last use noted until revoked")
    func lifecycle() async throws {
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken(email: "ana@example.com")
            let made = try await app.call(.post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "Ana's phone"), token: token)
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
            let more = try await app.call(.post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "One more"), token: token)
            #expect(more.expectProblem(.conflict).contains("20"))
            let blank = try await app.call(.post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "  "), token: token)
            blank.expectProblem(.unprocessableContent)
            let hidden = try await app.call(.post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "phone\u{202E}"), token: token)
            hidden.expectProblem(.unprocessableContent)
            #expect(try await app.call(.get, "/api/v1/me/app-passwords", token: nil).status == .unauthorized)
            let event = try await app.createEvent(token: token)
            let guest = try await app.guestToken(code: event["code"] as! String)
            #expect(try await app.call(.post, "/api/v1/me/app-passwords", body: AppPasswordInput(name: "x"), token: guest).status == .forbidden)
        }
    }
}
