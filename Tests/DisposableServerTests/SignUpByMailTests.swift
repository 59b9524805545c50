import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// With a mail server, registering answers alike whether or not the address has an account;
/// the account is made only by the link mailed to the address, through a real SMTP server (aiosmtpd).
@Suite("Registering by mail (ADM-3)", .serialized)
struct SignUpByMailTests {
    @Test(
        "With a mail server, a taken and a free address get the same answer; only the mailed link opens the account, once",
        arguments: TestEngine.allCases)
    func confirmByMail(engine: TestEngine) async throws {
        let sink = try await PasswordResetTests.MailSink()
        defer { sink.stop() }
        try await TestApp.run(engine, configure: { $0.smtpURL = sink.url }) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "ana's password")

            // MUT: the taken address and a free one, through the API and the form
            let taken = try await app.call(.post, "/api/v1/users", json: ["email": "Ana@Example.com", "password": "another password", "name": "Eve"])
            let free = try await app.call(
                .post, "/api/v1/users", json: ["email": "bea@example.com", "password": "bea's password", "name": "Bea", "acceptedTerms": "2026-11"])
            #expect(taken.status == .accepted && free.status == .accepted, "\(taken.status) \(free.status)")
            #expect(taken.text == free.text && free.string("status") == "confirmation-sent", "\(taken.text) / \(free.text)")
            #expect(!taken.text.contains("Ana") && !taken.text.contains("ana@"), "the answer names no one")
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            for email in ["ana%40example.com", "cleo%40example.com"] {
                let page = try await app.call(
                    .post, "/register", raw: "name=X&email=\(email)&password=a+good+password&terms=\(TermsOfUse.version)", headers: form)
                #expect(page.status == .ok && page.text.contains("id=\"register-sent\""), "\(email): \(page.status)")
            }

            let mails = try await sink.waitForMessages(4)
            let toAna = mails.filter { $0.contains("X-Envelope-To: ana@example.com") }.map(PasswordResetTests.MailSink.body)
            #expect(toAna.count == 2 && toAna.allSatisfy { $0.contains("already has one") && !$0.contains("/register/confirm/") })
            #expect(toAna.allSatisfy { !$0.contains("Eve") }, "the mail to the owner does not repeat what a stranger typed")
            let toBea = try #require(mails.first { $0.contains("X-Envelope-To: bea@example.com") }.map(PasswordResetTests.MailSink.body))
            let link = try #require(toBea.split(whereSeparator: \.isWhitespace).first { $0.contains("/register/confirm/") })
            let token = String(link.split(separator: "/").last ?? "")

            // Ana's password is unchanged; Bea has no account until she follows the link.
            let login: (String, String) async throws -> HTTPResponse.Status = { email, password in
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: email, password: password)).status
            }
            #expect(try await login("ana@example.com", "ana's password") == .ok)
            #expect(try await login("ana@example.com", "another password") == .unauthorized)
            #expect(try await login("bea@example.com", "bea's password") == .unauthorized)
            // Opening the link (a mail scanner does) shows a button and makes nothing.
            let page = try await app.call(.get, "/register/confirm/\(token)")
            #expect(page.status == .ok && page.text.contains("id=\"confirm-account\""))
            #expect(try await login("bea@example.com", "bea's password") == .unauthorized)

            let confirmed = try await app.call(.post, "/api/v1/registrations/\(token)")
            #expect(confirmed.status == .created && confirmed.string("email") == "bea@example.com", "\(confirmed.text)")
            // The terms she accepted waited with the registration, and are kept with the account.
            let terms = try await app.services.database.sql { db in
                try await db.raw("SELECT terms_version FROM users WHERE email = 'bea@example.com'").first()?.decode(
                    column: "terms_version", as: String?.self)
            }
            #expect(terms == "2026-11")
            #expect(try await login("bea@example.com", "bea's password") == .ok)
            #expect(try await app.call(.post, "/api/v1/registrations/\(token)").status == .notFound, "a link works once")
            #expect(try await app.call(.get, "/register/confirm/\(token)").status == .notFound)
            #expect(try await app.call(.post, "/api/v1/registrations/\(String(repeating: "A", count: 43))").status == .notFound)
        }
    }

    @Test("A confirmation link expires after a day")
    func expires() async throws {
        let sink = try await PasswordResetTests.MailSink()
        defer { sink.stop() }
        try await TestApp.run(.sqlite, configure: { $0.smtpURL = sink.url }) { app in
            #expect(try await app.call(.post, "/api/v1/users", json: ["email": "dan@example.com", "password": "dan's password"]).status == .accepted)
            let body = PasswordResetTests.MailSink.body(try #require(try await sink.waitForMessages(1).first))
            let token = try #require(body.split(whereSeparator: \.isWhitespace).first { $0.contains("/register/confirm/") })
                .split(separator: "/").last.map(String.init)
            app.clock.advance(by: 24 * 3600 + 1)
            #expect(try await app.call(.post, "/api/v1/registrations/\(try #require(token))").status == .notFound)
        }
    }
}
