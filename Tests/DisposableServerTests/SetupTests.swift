import DisposableAPI
import DisposableServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("First run: setup wizard and admin command (ADM-2)")
struct SetupTests {
    @Test("/setup creates the first admin for whoever has the setup code, then it is gone", arguments: TestEngine.allCases)
    func wizard(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let page = try await app.call(.get, "/setup")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.headers[.contentSecurityPolicy] != nil)
            #expect(page.text.contains("<form method=\"post\" action=\"/setup\""))
            #expect(page.text.contains("name=\"code\""))
            let code = try #require(try await app.services.accounts.setupCode())
            #expect(code.count == 14 && code.split(separator: "-").count == 3, "\(code)")
            #expect(!page.text.contains(code), "the page never shows the code")

            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            func submit(_ body: String) async throws -> (status: HTTPResponse.Status, text: String) {
                try await app.client.execute(uri: "/setup", method: .post, headers: form, body: ByteBuffer(string: body)) {
                    ($0.status, String(buffer: $0.body))
                }
            }
            // Without the code, or with a wrong one, nobody becomes admin — the first to arrive included.
            for attempt in ["", "&code=", "&code=AAAA-AAAA-AAAA", "&code=" + String(code.dropLast())] {
                let refused = try await submit("email=first%40example.com&password=password" + attempt)
                #expect(refused.status == .forbidden, "\(attempt)")
                #expect(refused.text.contains("setup code"))
            }
            #expect(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "first@example.com", password: "password")).status
                    == .unauthorized)

            let invalid = try await submit("email=root%40example&password=password&name=%3Cb%3E&code=" + code)
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.text.contains("needs a domain with a dot"))
            #expect(invalid.text.contains("&lt;b&gt;"), "what was typed comes back escaped")

            // Typed as people type it: lower case, spaces instead of dashes.
            let typed = code.lowercased().replacingOccurrences(of: "-", with: "+")
            let created = try await app.client.execute(
                uri: "/setup", method: .post, headers: form,
                body: ByteBuffer(string: "email=root%40example.com&password=password&name=Root&code=" + typed)
            ) { $0 }
            #expect(created.status == .created)
            #expect(String(buffer: created.body).contains("href=\"/login"), "the wizard ends with the way to sign in")
            let session = try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "root@example.com", password: "password"))
            #expect((session["user"] as? [String: Any])?["isAdmin"] as? Bool == true)

            #expect(try await app.call(.get, "/setup").status == .notFound)
            let again = try await app.client.execute(
                uri: "/setup", method: .post, headers: form, body: ByteBuffer(string: "email=evil%40example.com&password=password")
            ) { $0 }
            #expect(again.status == .notFound)
            #expect(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "evil@example.com", password: "password")).status
                    == .unauthorized)
            #expect(try await app.services.accounts.setupCode() == nil, "the code is gone with the first admin")
        }
    }

    @Test("The only admin cannot erase their account or lose their rights, so /setup never opens again", arguments: TestEngine.allCases)
    func lastAdmin(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            _ = try await app.services.accounts.createAdmin(email: "root@example.com", password: "password", name: "Root")
            let root = try #require(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "root@example.com", password: "password")).string("token"))
            let rootID = try #require(((try await app.call(.get, "/api/v1/me", token: root))["user"] as? [String: Any])?["id"] as? String)
            try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "root@example.com"], token: root).expectProblem(.conflict)
            try await app.call(.patch, "/api/v1/admin/users/\(rootID)", json: ["isAdmin": false], token: root).expectProblem(.conflict)
            #expect(try await app.call(.get, "/api/v1/me", token: root).status == .ok)
            #expect(try await app.call(.get, "/setup").status == .notFound)

            // With a second admin, either may go.
            let ben = try await app.call(
                .post, "/api/v1/admin/users", json: ["email": "ben@example.com", "password": "a good password", "isAdmin": true], token: root)
            #expect(ben.status == .created, "\(ben.text)")
            let benID = try #require(ben.string("id"))
            let benToken = try #require(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ben@example.com", password: "a good password")).string(
                    "token"))
            #expect(try await app.call(.patch, "/api/v1/admin/users/\(rootID)", json: ["isAdmin": false], token: benToken).status == .ok)
            // Ben is the only admin now: the same rule holds for him.
            try await app.call(.patch, "/api/v1/admin/users/\(benID)", json: ["isAdmin": false], token: benToken).expectProblem(.conflict)
            try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "ben@example.com"], token: benToken).expectProblem(.conflict)
            #expect(try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "root@example.com"], token: root).status == .noContent)
            #expect(try await app.call(.get, "/setup").status == .notFound)
        }
    }

    @Test("Two admins erasing themselves at the same moment: one goes, the other is refused, an admin remains", arguments: TestEngine.allCases)
    func twoAdminsErasingThemselves(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            func admin(_ email: String) async throws -> (email: String, token: String) {
                _ = try await app.services.accounts.createAdmin(email: email, password: "password", name: "Admin")
                let token = try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: email, password: "password")).string("token")
                return (email, try #require(token))
            }
            // Each round races the admin left by the last one against a new one: exactly one of the two may go.
            var survivor = try await admin("first@example.com")
            for round in 0..<5 {
                let pair = [survivor, try await admin("admin\(round)@example.com")]
                let outcomes = try await withThrowingTaskGroup(of: (Int, HTTPResponse.Status).self) { group in
                    for (index, admin) in pair.enumerated() {
                        group.addTask {
                            (index, try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": admin.email], token: admin.token).status)
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                #expect(Set(outcomes.values) == [.noContent, .conflict], "\(outcomes)")
                #expect(try await app.services.accounts.adminExists())
                #expect(try await app.call(.get, "/setup").status == .notFound)
                survivor = pair[outcomes.first { $0.value == .conflict }?.key ?? 0]
            }
        }
    }
}
