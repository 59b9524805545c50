import Foundation
import Hummingbird
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SUP-2: anyone writes to the admin; the admin reads the ticket in the panel, answers by e-mail through a real
/// SMTP server, and closes it.
@Suite("Support tickets (SUP-2)", .serialized)
struct SupportTests {
    @Test("A guest writes without an address, a visitor with one; the admin answers by mail and closes", arguments: TestEngine.allCases)
    func tickets(engine: TestEngine) async throws {
        let sink = try await PasswordResetTests.MailSink()
        defer { sink.stop() }
        try await TestApp.run(
            engine,
            configure: {
                $0.smtpURL = sink.url; $0.mailFrom = "Disposable <photos@example.org>"
            }
        ) { app in
            let organizer = try await app.userToken()
            let guest = try await app.guestToken(code: try await app.createEvent(token: organizer)["code"] as! String)
            let admin = try await app.adminToken()

            let anonymous = try await app.call(
                .post, "/api/v1/support/tickets", json: ["subject": "A photo of me", "message": "Please take down\nthe photo at 21:04."], token: guest
            )
            #expect(anonymous.status == .created && anonymous.string("status") == "open")
            #expect(anonymous["message"] == nil, "the writer gets no echo of what only the admin reads")
            let visitor = try await app.call(
                .post, "/api/v1/support/tickets", json: ["email": "Zed@Example.com", "subject": "Can't join", "message": "The code says unknown."])
            let id = try #require(visitor.string("id"))

            // The admin sees both, with the address and the message, open first.
            let list = try #require(try await app.call(.get, "/api/v1/admin/tickets", token: admin)["items"] as? [[String: Any]])
            #expect(list.count == 2)
            let seen = try #require(list.first { $0["id"] as? String == id })
            #expect(seen["email"] as? String == "zed@example.com" && seen["message"] as? String == "The code says unknown.")
            let panel = try await app.page(.get, "/admin", cookie: admin)
            #expect(panel.text.contains("Can&#39;t join") || panel.text.contains("Can't join"))
            #expect(panel.text.contains("Please take down\nthe photo at 21:04."))

            // MUT: answer by mail and close
            let answered = try await app.call(
                .patch, "/api/v1/admin/tickets/\(id)", json: ["answer": "Type it with the dash: ABCD-EFGH.", "status": "closed"], token: admin)
            #expect(answered.status == .ok && answered.string("status") == "closed" && answered.string("answer") != nil)
            let mail = try #require(try await sink.waitForMessages(1).first)
            #expect(mail.contains("X-Envelope-To: zed@example.com"))
            #expect(PasswordResetTests.MailSink.body(mail).contains("Type it with the dash: ABCD-EFGH."))
            #expect(try await app.call(.get, "/api/v1/admin/tickets?status=closed", token: admin)["items"].map { ($0 as? [Any])?.count } == 1)
            // The panel keeps it among the closed ones, which can be reopened.
            let history = try await app.page(.get, "/admin", cookie: admin)
            #expect(history.text.contains("id=\"closed-tickets\"") && history.text.contains("Reopen"))

            // No address to answer to: 409; hostile and odd input: clear refusals.
            let guestTicket = try #require(anonymous.string("id"))
            try await app.call(.patch, "/api/v1/admin/tickets/\(guestTicket)", json: ["answer": "Done."], token: admin).expectProblem(.conflict)
            try await app.call(.patch, "/api/v1/admin/tickets/\(guestTicket)", json: ["status": "maybe"], token: admin).expectProblem(
                .unprocessableContent)
            try await app.call(.patch, "/api/v1/admin/tickets/nothing", json: ["status": "closed"], token: admin).expectProblem(.notFound)
            try await app.call(.get, "/api/v1/admin/tickets?status=lost", token: admin).expectProblem(.unprocessableContent)
            for (body, field) in [
                (["subject": "", "message": "x"], "subject"), (["subject": "x", "message": String(repeating: "é", count: 5001)], "message"),
                (["subject": "bell\u{7}", "message": "x"], "subject"), (["subject": "x", "message": "x", "email": "nope"], "email"),
            ] {
                let refused = try await app.call(.post, "/api/v1/support/tickets", json: body)
                refused.expectProblem(.unprocessableContent)
                #expect(refused.string("field") == field, "\(refused.text)")
            }
        }
    }

    @Test(
        "Tickets are rate-limited per address; the contact page says thank you and keeps what was typed on a refusal", arguments: TestEngine.allCases)
    func limits(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.limits.support = RateLimit(burst: 5, refillEvery: .seconds(600)) }) { app in
            let statuses = try await (0..<6).asyncMap { index in
                try await app.call(.post, "/api/v1/support/tickets", json: ["subject": "Spam \(index)", "message": "x"]).status
            }
            #expect(statuses == Array(repeating: .created, count: 5) + [.tooManyRequests])
        }
        try await TestApp.run(engine) { app in
            let sent = try await app.page(.post, "/support", form: "subject=Hello&message=A+question", headers: [.acceptLanguage: "fr"])
            #expect(sent.status == .ok && sent.text.contains("votre message a été envoyé"))
            let refused = try await app.page(.post, "/support", form: "subject=&message=Still+here")
            #expect(refused.status == .unprocessableContent && refused.text.contains("Still here"))
        }
    }
}
