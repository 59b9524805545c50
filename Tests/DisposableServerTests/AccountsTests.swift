import DisposableAPI
import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Accounts (ADM-3, SEC-3)")
struct AccountsTests {
    /// The GuestBook seed's test table (Section 5): each bad log-in is refused and says what is wrong.
    struct LoginScenario: Sendable, CustomTestStringConvertible {
        let name: String
        let email: String?
        let password: String?
        let status: HTTPResponse.Status
        let field: String?
        let mentions: String
        var testDescription: String { name }
    }

    static let loginScenarios: [LoginScenario] = [
        .init(name: "1 unregistered user", email: "test@gmail.com", password: "password", status: .unauthorized, field: nil, mentions: "wrong"),
        .init(name: "3 invalid password", email: "registered@gmail.com", password: "passworf", status: .unauthorized, field: nil, mentions: "wrong"),
        .init(name: "3 invalid email", email: "tesy@gmail.com", password: "password", status: .unauthorized, field: nil, mentions: "wrong"),
        .init(name: "4 no data", email: nil, password: nil, status: .unprocessableContent, field: "email", mentions: "enter your email"),
        .init(name: "5 blank email", email: "", password: "password", status: .unprocessableContent, field: "email", mentions: "enter your email"),
        .init(
            name: "6 blank password", email: "registered@gmail.com", password: "", status: .unprocessableContent, field: "password",
            mentions: "enter your password"),
        .init(
            name: "7 no @", email: "testgmail.com", password: "password", status: .unprocessableContent, field: "email", mentions: "missing an “@”"),
        .init(
            name: "8 no .", email: "test@gmailcom", password: "password", status: .unprocessableContent, field: "email", mentions: "domain with a dot"
        ),
        .init(
            name: "9 no @ and no .", email: "testgmailcom", password: "password", status: .unprocessableContent, field: "email",
            mentions: "missing an “@” and a domain"),
    ]

    @Test("GuestBook log-in scenarios are refused with a clear message", arguments: TestEngine.allCases, loginScenarios)
    func guestBookScenarios(engine: TestEngine, scenario: LoginScenario) async throws {
        try await TestApp.run(engine) { app in
            // setup: scenario 2, a registered user with valid data, can log in
            let registered = try await app.call(.post, "/api/v1/users", json: ["email": "registered@gmail.com", "password": "password"])
            #expect(registered.status == .created)
            #expect(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "registered@gmail.com", password: "password")).status == .ok)
            var body: [String: Any] = [:]
            body["email"] = scenario.email
            body["password"] = scenario.password
            // MUT
            let response = try await app.call(.post, "/api/v1/sessions", json: body)
            // validate
            let detail = response.expectProblem(scenario.status)
            #expect(detail.lowercased().contains(scenario.mentions.lowercased()), "\(detail)")
            #expect(response.string("field") == scenario.field)
            #expect(response.string("token") == nil)
        }
    }

    @Test("Registration refuses the same bad emails and blank fields", arguments: TestEngine.allCases)
    func registrationValidation(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let cases: [([String: Any], String, String)] = [
                ([:], "email", "enter your email"),
                (["email": "", "password": "password"], "email", "enter your email"),
                (["email": "a@b.co", "password": ""], "password", "enter a password"),
                (["email": "a@b.co"], "password", "enter a password"),
                (["email": "a@b.co", "password": "short"], "password", "at least 8"),
                (["email": "testgmail.com", "password": "password"], "email", "missing an “@”"),
                (["email": "test@gmailcom", "password": "password"], "email", "domain with a dot"),
                (["email": "testgmailcom", "password": "password"], "email", "missing an “@” and a domain"),
                (["email": "a@b.co", "password": "password", "name": "\u{202E}evil"], "name", "control"),
            ]
            for (body, field, mention) in cases {
                let response = try await app.call(.post, "/api/v1/users", json: body)
                let detail = response.expectProblem(.unprocessableContent)
                #expect(response.string("field") == field, "\(body)")
                #expect(detail.lowercased().contains(mention.lowercased()), "\(detail)")
            }
            let first = try await app.call(.post, "/api/v1/users", json: ["email": "Ana@Example.com", "password": "password"])
            #expect(first.status == .created)
            #expect(first.string("email") == "ana@example.com")
            let again = try await app.call(.post, "/api/v1/users", json: ["email": "ana@example.com ", "password": "password"])
            #expect(again.expectProblem(.conflict).contains("already exists"))
        }
    }

    @Test("Log in gives a token and an HttpOnly cookie; /me answers; log out revokes", arguments: TestEngine.allCases)
    func sessionLifecycle(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            _ = try await app.call(.post, "/api/v1/users", json: ["email": "james@example.com", "password": "password", "name": "James"])
            let session = try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "james@example.com", password: "password"))
            #expect(session.status == .ok)
            let token = try #require(session.string("token"))
            let cookie = try #require(session.headers[.setCookie])
            #expect(cookie.contains("disposable_session=\(token)"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(cookie.contains("Secure"), "the test instance is https, so the cookie must be Secure")

            let me = try await app.call(.get, "/api/v1/me", token: token)
            #expect(me.string("kind") == "user")
            #expect((me["user"] as? [String: Any])?["name"] as? String == "James")
            let byCookie = try await app.call(.get, "/api/v1/me", headers: [.cookie: "disposable_session=\(token)"])
            #expect(byCookie.status == .ok)

            #expect(try await app.call(.delete, "/api/v1/sessions/current", token: token).status == .noContent)
            try await app.call(.get, "/api/v1/me", token: token).expectProblem(.unauthorized)
            try await app.call(.get, "/api/v1/me").expectProblem(.unauthorized)
        }
    }

    @Test("Passwords are bcrypt with cost 12 by default; tokens are long and stored only hashed", arguments: TestEngine.allCases)
    func secretsAtRest(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.passwordHashCost = AppConfiguration().passwordHashCost }) { app in
            let token = try await app.userToken(email: "olivia@example.com", password: "a long passphrase")
            #expect(
                Data(base64Encoded: token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "=")!.count * 8 >= 128)
            let (hash, storedTokens) = try await app.services.database.sql { db in
                let hash = try await db.raw("SELECT password_hash FROM users").first()!.decode(column: "password_hash", as: String.self)
                let tokens = try await db.raw("SELECT token_hash FROM access_tokens").all().map {
                    try $0.decode(column: "token_hash", as: String.self)
                }
                return (hash, tokens)
            }
            #expect(hash.hasPrefix("$2b$12$") || hash.hasPrefix("$2a$12$") || hash.hasPrefix("$2y$12$"), "\(hash)")
            #expect(!storedTokens.contains(token))
            #expect(storedTokens.count == 1)
        }
    }

    @Test("Log-in attempts are rate-limited per client address", arguments: TestEngine.allCases)
    func loginRateLimit(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.limits.login = .init(burst: 3, refillEvery: .seconds(60)) }) { app in
            _ = try await app.call(.post, "/api/v1/users", json: ["email": "ana@example.com", "password": "password"])
            for _ in 0..<3 {
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong one"))
                    .expectProblem(.unauthorized)
            }
            let limited = try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "password"))
            limited.expectProblem(.tooManyRequests)
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect(retryAfter > 0 && retryAfter <= 60)
        }
    }

    @Test("Registration can be closed", arguments: TestEngine.allCases)
    func registrationDisabled(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.registrationEnabledByDefault = false }) { app in
            let status = try await app.call(.get, "/status")
            #expect(status["registrationEnabled"] as? Bool == false)
            let response = try await app.call(.post, "/api/v1/users", json: ["email": "a@b.co", "password": "password"])
            #expect(response.expectProblem(.forbidden) == "Account registration is disabled")
        }
    }
}
