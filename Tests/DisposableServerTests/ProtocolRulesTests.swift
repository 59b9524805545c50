import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// What a request must be, and where a page may send the reader.
@Suite("Protocol rules and redirects")
struct ProtocolRulesTests {
    @Test("An HTTP/1.1 request without Host gets 400; TRACE gets 405; both with the media fast path on")
    func hostAndMethods() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let port = try #require(app.client.port)
            let answers = try await RawHTTP.exchange(
                port: port,
                "GET /healthz HTTP/1.1\r\n\r\n" + "GET /api/v1/media/e/p/thumbnail.jpg?until=1&sig=x HTTP/1.1\r\n\r\n"
                    + "TRACE /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                responses: 4)
            #expect(answers.map(\.status) == [400, 400, 405, 200])
            #expect(answers[0].contentType == "application/problem+json")
        }
    }

    @Test(
        "next and back accept only a plain local path",
        arguments: [
            // As they arrive decoded: the review's `/%5C127.0.0.1:8093/` and `/%09/evil.example`, and their kin.
            "/\\127.0.0.1:8093/", "/\t/evil.example", "//evil.example", "/\n/evil.example", "https://evil.example/",
            "/\r\nSet-Cookie: x=1", "/ /evil.example", "javascript:alert(1)",
        ])
    func redirects(target: String) async throws {
        try await TestApp.run(.sqlite) { app in
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            let language = try await app.page(.get, "/language/fr?back=\(encoded)")
            #expect(language.headers[.location] == "/", "\(target) → \(language.headers[.location] ?? "")")
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            let login = try await app.page(.post, "/login", form: "email=ana%40example.com&password=correct+horse&next=\(encoded)")
            #expect(login.headers[.location] == "/events", "\(target) → \(login.headers[.location] ?? "")")
        }
        #expect(LocalPath.safe("/e/K7QX-M2PA/camera?welcome=1") == "/e/K7QX-M2PA/camera?welcome=1")
    }

    @Test("A chunk size that is not hexadecimal is 400 with a sentence; requests pipelined behind a body are all answered")
    func brokenFramingAndPipelining() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let port = try #require(app.client.port)
            let broken = try await RawHTTP.exchange(
                port: port,
                "POST /api/v1/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n",
                responses: 1)
            #expect(broken.map(\.status) == [400] && broken[0].contentType == "application/problem+json")
            let pipelined = try await RawHTTP.exchange(
                port: port,
                "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                    + "POST /api/v1/nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                    + "GET /api/v1/media/e/p/thumbnail.jpg?until=1&sig=x HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                responses: 4)
            #expect(pipelined.map(\.status) == [422, 404, 403, 200], "\(pipelined.map(\.status))")
        }
    }

    @Test("Forwarding headers from this machine while no proxy is trusted: the admin panel says so, and /metrics is not local")
    func untrustedProxy() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let admin = try await app.adminToken()
            let before = try await app.page(.get, "/admin", cookie: admin)
            #expect(!before.text.contains("id=\"proxy-warning\""))
            let forwarded = try await app.call(.get, "/metrics", headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"])
            #expect(forwarded.status == .unauthorized || forwarded.status == .forbidden, "\(forwarded.status)")
            let after = try await app.page(.get, "/admin", cookie: admin)
            #expect(after.text.contains("id=\"proxy-warning\"") && after.text.contains("--trusted-proxies"))
        }
    }
}
