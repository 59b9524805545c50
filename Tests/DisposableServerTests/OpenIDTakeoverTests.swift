import DisposableAPI
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// An address anyone could type never hands its account to a provider's person: a stranger who registered the
/// victim's address (no mail server checks sign-ups by default) does not receive the victim when they later sign
/// in through the provider; an admin's account is never joined by e-mail; starting sign-ins is rate-limited.
@Suite("Sign in with OpenID Connect: accounts on someone else's address")
struct OpenIDTakeoverTests {
    typealias Browser = OpenIDTests.Browser

    @Test("A stranger's account on the victim's address is not the victim's; an admin's is never joined by e-mail", arguments: TestEngine.allCases)
    func strangerAccount(engine: TestEngine) async throws {
        let provider = try await TestOpenIDProvider.start()
        try await withCleanup {
            try await TestApp.run(engine, configure: { $0.openID = try? OpenIDTests.settings(provider) }) { app in
                // The attacker registers the victim's address with a password of theirs (no mailed link to follow).
                let created = try await app.call(
                    .post, "/api/v1/users", body: RegisterRequest(email: "victim@example.org", password: "attacker's own"))
                #expect(created.status == .created, "\(created.text)")
                let attacker = try await app.call(
                    .post, "/api/v1/sessions", body: LoginRequest(email: "victim@example.org", password: "attacker's own")
                ).string("token")

                let sessionsBefore = (try await app.call(.get, "/api/v1/me/sessions", token: attacker)["items"] as? [[String: Any]])?.count
                // The victim signs in through the provider, which verified the address: refused, with the safe path.
                try await provider.setUser("victim-1", ["email": "victim@example.org", "email_verified": true])
                var victim = Browser()
                let refused = try await victim.signIn(app, provider, as: "victim-1")
                #expect(refused.status == .conflict && victim.session == nil, "\(refused.text)")
                #expect(refused.text.contains("never proved that the address is its own") && refused.text.contains("link the provider on My account"))
                // The attacker's session holds nothing of the victim's: no link, no session of theirs.
                #expect(try await app.call(.get, "/api/v1/me/openid", token: attacker)["linked"] as? Bool == false)
                let sessions = try await app.call(.get, "/api/v1/me/sessions", token: attacker)
                #expect(sessionsBefore != nil && (sessions["items"] as? [[String: Any]])?.count == sessionsBefore, "\(sessions.text)")

                // An admin's account, even with a proven address, is never joined by e-mail alone.
                let admin = try await app.adminToken()
                let adminEmail = try #require(try await OpenIDTests.me(app, admin)["email"] as? String)
                try await OpenIDTests.proveAddress(app, adminEmail)
                try await provider.setUser("admin-1", ["email": adminEmail, "email_verified": true])
                var impostor = Browser()
                #expect(try await impostor.signIn(app, provider, as: "admin-1").status == .conflict && impostor.session == nil)
                #expect(try await app.call(.get, "/api/v1/me/openid", token: admin)["linked"] as? Bool == false)

                // The admin links the provider from My account: the link works from then on.
                var linking = Browser(session: admin)
                #expect(
                    try await linking.signIn(app, provider, as: "admin-1", from: "/account/openid/link").headers[.location]
                        == "/account?done=openid-linked")
                var later = Browser()
                _ = try await later.signIn(app, provider, as: "admin-1")
                #expect(try await OpenIDTests.me(app, later.session)["isAdmin"] as? Bool == true)
            }
        } cleanup: {
            await provider.stop()
        }
    }

    @Test("Sign-ins begun from one address are limited: each keeps a row for ten minutes")
    func startsAreLimited() async throws {
        let provider = try await TestOpenIDProvider.start()
        try await withCleanup {
            try await TestApp.run(.sqlite, configure: { $0.openID = try? OpenIDTests.settings(provider) }) { app in
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<40 {
                    let answer = try await app.send(
                        "/login/openid", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                        body: ByteBuffer(string: "next=/events"))
                    statuses.append(answer.status)
                }
                #expect(statuses.prefix(20).allSatisfy { $0 == .seeOther }, "\(statuses)")
                #expect(statuses.contains(.tooManyRequests), "\(statuses)")
            }
        } cleanup: {
            await provider.stop()
        }
    }
}
