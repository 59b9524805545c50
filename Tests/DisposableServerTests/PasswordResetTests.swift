import DisposableAPI
import Foundation
import Hummingbird
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// ADM-3, P-I-110: "forgot password" through a real SMTP server (aiosmtpd), the one-time link, the admin's link
/// when there is no mail server, and changing one's own password.
@Suite("Password resets (ADM-3)", .serialized)
struct PasswordResetTests {
    /// aiosmtpd on a private port, keeping each message it accepts in a folder, with AUTH required.
    final class MailSink: Sendable {
        let port: Int
        let folder: URL
        let process: ChildProcess

        init() async throws {
            port = try freePort()
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-mail-\(UUID().uuidString)")
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("tools/smtp_sink.py").path
            process = try ChildProcess("/usr/bin/env", ["python3", script, String(port), folder.path, "mailer", "s3cret pass"])
            let deadline = ContinuousClock.now + .seconds(20)
            while (try? RawConnection(port: port)) == nil {
                guard ContinuousClock.now < deadline, process.isRunning else { throw TestSetupError("the SMTP server did not start") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        var url: String { "smtp://mailer:s3cret%20pass@127.0.0.1:\(port)" }

        /// The messages received so far, oldest first.
        func messages() -> [String] {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".eml") }
            return names.sorted { Int($0.dropLast(4)) ?? 0 < Int($1.dropLast(4)) ?? 0 }.compactMap {
                FileManager.default.contents(atPath: folder.appendingPathComponent($0).path).map { String(decoding: $0, as: UTF8.self) }
            }
        }

        func waitForMessages(_ count: Int) async throws -> [String] {
            let deadline = ContinuousClock.now + .seconds(30)
            while messages().count < count {
                guard ContinuousClock.now < deadline else { throw TestSetupError("\(count) mails expected, \(messages().count) arrived") }
                try await Task.sleep(for: .milliseconds(100))
            }
            return messages()
        }

        func stop() {
            process.signal(SIGKILL)
            try? FileManager.default.removeItem(at: folder)
        }

        /// A received message's decoded text body (the mailer sends base64).
        static func body(_ message: String) -> String {
            let parts = message.components(separatedBy: "\r\n\r\n")
            let encoded = parts.dropFirst().joined().filter { !$0.isWhitespace }
            return Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    @Test(
        "Forgot password: always 202; the mail arrives through SMTP with a link that works once and ends every session",
        arguments: TestEngine.allCases)
    func byMail(engine: TestEngine) async throws {
        let sink = try await MailSink()
        defer { sink.stop() }
        try await TestApp.run(
            engine,
            configure: {
                $0.smtpURL = sink.url; $0.mailFrom = "Disposable <photos@example.org>"
            }
        ) { app in
            let first = try await app.userToken(email: "ana@example.com", password: "old password")
            let second = try #require(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "old password")).string("token"))

            // MUT: ask for a link, and for an account that does not exist: the same answer
            #expect(try await app.call(.post, "/api/v1/password-resets", json: ["email": "Ana@Example.com"]).status == .accepted)
            #expect(try await app.call(.post, "/api/v1/password-resets", json: ["email": "nobody@example.com"]).status == .accepted)

            // validate: one mail, to Ana, from the instance, with the link
            let mail = try #require(try await sink.waitForMessages(1).first)
            try await Task.sleep(for: .milliseconds(500))
            #expect(sink.messages().count == 1, "no mail for an unknown address")
            #expect(mail.contains("X-Envelope-To: ana@example.com") && mail.contains("From: Disposable <photos@example.org>"))
            #expect(mail.contains("Subject: =?UTF-8?B?\(Data("Reset your Disposable password".utf8).base64EncodedString())?="))
            let body = MailSink.body(mail)
            let link = try #require(body.components(separatedBy: .newlines).first { $0.hasPrefix("https://disposable.test/reset/") })
            let token = String(link.split(separator: "/").last!)
            #expect(body.hasPrefix("Hello Olivia"), "\(body)")

            // The page opens; the link sets the new password once; every session ends.
            #expect(try await app.page(.get, "/reset/\(token)").status == .ok)
            #expect(try await app.call(.post, "/api/v1/password-resets/\(token)", json: ["password": "new password"]).status == .noContent)
            try await app.call(.post, "/api/v1/password-resets/\(token)", json: ["password": "another one"]).expectProblem(.notFound)
            #expect(try await app.page(.get, "/reset/\(token)").status == .notFound)
            for session in [first, second] { try await app.call(.get, "/api/v1/me", token: session).expectProblem(.unauthorized) }
            try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "old password")).expectProblem(
                .unauthorized)
            #expect(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "new password")).status == .ok)

            // Hostile input: bad addresses, made-up and malformed tokens, a weak password; a stranger's inbox is not flooded.
            try await app.call(.post, "/api/v1/password-resets", json: ["email": "not an address"]).expectProblem(.unprocessableContent)
            try await app.call(.post, "/api/v1/password-resets", json: ["email": "a@b.c", "extra": 1]).expectProblem(.badRequest)
            for made in [String(repeating: "A", count: 43), "short", "../../etc/passwd", String(repeating: "x", count: 5000)] {
                let path = made.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await app.call(.post, "/api/v1/password-resets/\(path)", json: ["password": "new password"]).expectProblem(.notFound)
            }
            let statuses = try await (0..<4).asyncMap { _ in
                try await app.call(.post, "/api/v1/password-resets", json: ["email": "ana@example.com"]).status
            }
            #expect(statuses.prefix(2).allSatisfy { $0 == .accepted } && statuses.last == .tooManyRequests, "\(statuses)")
        }
    }

    @Test(
        "Without mail: the admin's one-time link; it expires after an hour; the page checks the two passwords match", arguments: TestEngine.allCases)
    func adminLink(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let session = try await app.userToken(email: "ben@example.com", password: "old password")
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: session))["user"] as? [String: Any])?["id"] as? String)
            let admin = try await app.adminToken()
            // Asking without a mail server still answers 202 (the log says to use the admin's link).
            #expect(try await app.call(.post, "/api/v1/password-resets", json: ["email": "ben@example.com"]).status == .accepted)
            try await app.call(.post, "/api/v1/admin/users/\(me)/password-reset", token: session).expectProblem(.forbidden)
            try await app.call(.post, "/api/v1/admin/users/nobody/password-reset", token: admin).expectProblem(.notFound)

            let expired = try #require(try await app.call(.post, "/api/v1/admin/users/\(me)/password-reset", token: admin).string("resetURL"))
            app.clock.advance(by: 3601)
            let stale = String(expired.split(separator: "/").last!)
            try await app.call(.post, "/api/v1/password-resets/\(stale)", json: ["password": "new password"]).expectProblem(.notFound)

            let link = try await app.call(.post, "/api/v1/admin/users/\(me)/password-reset", token: admin)
            #expect(link.status == .created && link.string("resetURL")?.hasPrefix("https://disposable.test/reset/") == true)
            let token = String(try #require(link.string("resetURL")).split(separator: "/").last!)
            let mismatch = try await app.page(.post, "/reset/\(token)", form: "password=new+password&confirmation=new+passw0rd")
            #expect(mismatch.status == .unprocessableContent && mismatch.text.contains("not the same"))
            let done = try await app.page(.post, "/reset/\(token)", form: "password=new+password&confirmation=new+password")
            #expect(done.status == .seeOther && done.headers[.location] == "/login?reset=1")
            #expect(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ben@example.com", password: "new password")).status == .ok)
            // The panel hands out the same kind of link.
            let panel = try await app.page(.post, "/admin/users/\(me)/reset-link", cookie: admin)
            #expect(panel.status == .ok && panel.text.contains("https://disposable.test/reset/"))
        }
    }

    @Test("Changing my password: the current one first; my other sessions end, this one stays", arguments: TestEngine.allCases)
    func change(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let here = try await app.userToken(email: "cleo@example.com", password: "old password")
            let phone = try #require(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "cleo@example.com", password: "old password")).string("token")
            )
            try await app.call(.post, "/api/v1/me/password", json: ["currentPassword": "wrong one", "newPassword": "new password"], token: here)
                .expectProblem(.forbidden)
            try await app.call(.post, "/api/v1/me/password", json: ["currentPassword": "old password", "newPassword": "short"], token: here)
                .expectProblem(.unprocessableContent)
            let guest = try await app.guestToken(code: try await app.createEvent(token: here)["code"] as! String)
            try await app.call(.post, "/api/v1/me/password", json: ["currentPassword": "x", "newPassword": "new password"], token: guest)
                .expectProblem(.forbidden)
            #expect(
                try await app.call(
                    .post, "/api/v1/me/password", json: ["currentPassword": "old password", "newPassword": "new password"], token: here
                )
                .status == .noContent)
            #expect(try await app.call(.get, "/api/v1/me", token: here).status == .ok)
            try await app.call(.get, "/api/v1/me", token: phone).expectProblem(.unauthorized)
        }
    }
}

extension Sequence {
    /// Maps one element after the other (requests that must not overlap).
    func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
