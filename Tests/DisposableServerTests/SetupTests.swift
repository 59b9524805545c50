import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("First run: setup wizard and admin command (ADM-2)")
struct SetupTests {
    @Test("/setup creates the first admin, then it is gone", arguments: TestEngine.allCases)
    func wizard(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let page = try await app.call(.get, "/setup")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.headers[.contentSecurityPolicy] != nil)
            #expect(page.text.contains("<form method=\"post\" action=\"/setup\""))

            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let invalid = try await app.client.execute(
                uri: "/setup", method: .post, headers: form, body: ByteBuffer(string: "email=root%40example&password=password&name=%3Cb%3E")
            ) { $0 }
            #expect(invalid.status == .unprocessableContent)
            #expect(String(buffer: invalid.body).contains("needs a domain with a dot"))
            #expect(String(buffer: invalid.body).contains("&lt;b&gt;"), "what was typed comes back escaped")

            let created = try await app.client.execute(
                uri: "/setup", method: .post, headers: form, body: ByteBuffer(string: "email=root%40example.com&password=password&name=Root")
            ) { $0 }
            #expect(created.status == .created)
            #expect(String(buffer: created.body).contains("href=\"/login"), "the wizard ends with the way to sign in")
            let session = try await app.call(.post, "/api/v1/sessions", json: ["email": "root@example.com", "password": "password"])
            #expect((session["user"] as? [String: Any])?["isAdmin"] as? Bool == true)

            #expect(try await app.call(.get, "/setup").status == .notFound)
            let again = try await app.client.execute(
                uri: "/setup", method: .post, headers: form, body: ByteBuffer(string: "email=evil%40example.com&password=password")
            ) { $0 }
            #expect(again.status == .notFound)
            #expect(
                try await app.call(.post, "/api/v1/sessions", json: ["email": "evil@example.com", "password": "password"]).status == .unauthorized)
        }
    }
}
