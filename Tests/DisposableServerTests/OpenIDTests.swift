import DisposableAPI
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DisposableFeatures
@testable import DisposableServer

/// Sign in with OpenID Connect, through HTTP against a real provider (oidc-provider-mock) the test starts —
/// who a provider's person becomes here (linked, matched by a verified e-mail, new, refused), the state and code
/// used once, linking and unlinking on My account, closed registration, `--oidc-only`, and the admin's view.
@Suite("Sign in with OpenID Connect")
struct OpenIDTests {
    /// One browser: its session and the state cookie the sign-in leaves.
    struct Browser {
        var session: String? = nil
        var state: String? = nil

        var cookies: String {
            [session.map { "disposable_session=\($0)" }, state.map { "disposable_openid=\($0)" }].compactMap { $0 }.joined(separator: "; ")
        }

        /// Presses the provider's button (`path`: the sign-in form or My account's link); returns the provider's URL.
        mutating func start(_ app: TestApp, _ path: String = "/login/openid", form: String = "next=/library") async throws -> String {
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            if !cookies.isEmpty { headers[.cookie] = cookies }
            let answer = try await app.send(path, method: .post, headers: headers, body: ByteBuffer(string: form))
            #expect(answer.status == .seeOther, "\(answer.text)")
            let set = answer.headers[values: .setCookie].first { $0.hasPrefix("disposable_openid=") } ?? ""
            #expect(set.contains("HttpOnly") && set.contains("Path=/login/openid") && set.contains("SameSite=Lax"), "\(set)")
            state = String(set.dropFirst("disposable_openid=".count).prefix { $0 != ";" })
            return try #require(answer.headers[.location])
        }

        /// Comes back from the provider to `callback`; keeps the session it gives.
        mutating func finish(_ app: TestApp, _ callback: String) async throws -> APIResponse {
            var headers: HTTPFields = [:]
            if !cookies.isEmpty { headers[.cookie] = cookies }
            let answer = try await app.send(callback, method: .get, headers: headers, body: nil)
            if let set = answer.headers[values: .setCookie].first(where: { $0.hasPrefix("disposable_session=") }) {
                session = String(set.dropFirst("disposable_session=".count).prefix { $0 != ";" })
            }
            return answer
        }

        /// The whole round: the button, the provider's form as `sub`, back.
        mutating func signIn(_ app: TestApp, _ provider: TestOpenIDProvider, as sub: String, from path: String = "/login/openid")
            async throws -> APIResponse
        {
            let authorization = try await start(app, path)
            return try await finish(app, try await provider.authorize(authorization, as: sub))
        }
    }

    static func settings(_ provider: TestOpenIDProvider, only: Bool = false) throws -> OpenIDSettings {
        try OpenIDSettings(
            issuer: provider.issuer, clientID: "disposable-tests", clientSecret: "a secret", buttonLabel: "Sign in with Mock", only: only)
    }

    /// The account's address proven, as a mailed sign-up link does.
    static func proveAddress(_ app: TestApp, _ email: String) async throws {
        let user = try #require(try await app.services.accounts.users.findWithPassword(email: email)?.0)
        try await app.services.database.transaction { db in
            try await app.services.accounts.users.markEmailProven(user.id, email: email, now: app.clock.now, in: db)
        }
    }

    /// The error sentence of a sign-in page.
    static func sentence(_ page: String) -> String {
        guard let start = page.range(of: "class=\"error\"") else { return "" }
        return String(page[start.upperBound...].prefix { $0 != "<" })
    }

    static func me(_ app: TestApp, _ token: String?) async throws -> [String: Any] {
        try await app.call(.get, "/api/v1/me", token: token)["user"] as? [String: Any] ?? [:]
    }

    @Test(
        "A provider's person opens their account: linked, matched by a verified e-mail, or new; never by an unverified one",
        arguments: TestEngine.allCases)
    func whoSignsIn(engine: TestEngine) async throws {
        let provider = try await TestOpenIDProvider.start()
        try await withCleanup {
            try await TestApp.run(engine, configure: { $0.openID = try? Self.settings(provider) }) { app in
                let admin = try await app.adminToken()
                try await provider.setUser("alice-1", ["email": "Alice@Example.org", "email_verified": true, "name": "Alice Martin"])
                try await provider.setUser("bob-1", ["email": "bob@example.org", "email_verified": true])
                try await provider.setUser("carol-1", ["email": "carol@example.org", "email_verified": false])
                try await provider.setUser("dave-1", ["email": "dave@example.org"])
                let bob = try await app.userToken(email: "bob@example.org")
                // Bob followed a mailed sign-up link (what proves an address; `SignUpByMailTests` goes that way)
                try await Self.proveAddress(app, "bob@example.org")
                let carol = try await app.userToken(email: "carol@example.org")

                // the sign-in page offers the provider, with the admin's words, and still the password
                let login = try await app.send("/login", method: .get, headers: [:], body: nil)
                #expect(login.text.contains("id=\"openid-button\" aria-describedby=\"openid-terms\">Sign in with Mock<"))
                #expect(login.text.contains("name=\"password\""))
                // and says, beside the button, that a first sign-in opens an account under the terms (with passwords too)
                #expect(
                    login.text.contains("id=\"openid-terms\">Signing in the first time opens an account") && login.text.contains("href=\"/terms\""))

                // a new person: a new account, signed in, back where they were going
                var alice = Browser()
                let first = try await alice.signIn(app, provider, as: "alice-1")
                #expect(first.status == .seeOther && first.headers[.location] == "/library", "\(first.text)")
                let aliceUser = try await Self.me(app, alice.session)
                #expect(aliceUser["email"] as? String == "alice@example.org" && aliceUser["name"] as? String == "Alice Martin")
                let status = try await app.call(.get, "/api/v1/me/openid", token: alice.session)
                #expect(status["linked"] as? Bool == true && status["hasPassword"] as? Bool == false && status.string("issuer") == provider.issuer)
                // no password: unlinking would lock her out
                #expect(try await app.call(.delete, "/api/v1/me/openid", token: alice.session).expectProblem(.conflict).contains("no password"))
                #expect(
                    try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "alice@example.org", password: "!")).status
                        == .unauthorized)

                // the same person again: the same account
                var again = Browser()
                _ = try await again.signIn(app, provider, as: "alice-1")
                #expect(try await Self.me(app, again.session)["id"] as? String == aliceUser["id"] as? String)

                // a verified e-mail opens the account that has it, linked from now on
                var bobs = Browser()
                #expect(try await bobs.signIn(app, provider, as: "bob-1").status == .seeOther)
                #expect(try await Self.me(app, bobs.session)["id"] as? String == (try await Self.me(app, bob))["id"] as? String)
                #expect(try await app.call(.get, "/api/v1/me/openid", token: bob)["linked"] as? Bool == true)

                // hostile: an unverified e-mail never opens the account that has it…
                var impostor = Browser()
                let refused = try await impostor.signIn(app, provider, as: "carol-1")
                #expect(
                    refused.status == .forbidden && refused.text.contains("has not confirmed that this e-mail address is yours"), "\(refused.text)")
                #expect(impostor.session == nil)
                #expect(try await app.call(.get, "/api/v1/me/openid", token: carol)["linked"] as? Bool == false)
                // …nor opens a new one: the same answer whether or not an account has the address
                var dave = Browser()
                let daveRefused = try await dave.signIn(app, provider, as: "dave-1")
                #expect(daveRefused.status == refused.status && dave.session == nil)
                #expect(!Self.sentence(refused.text).isEmpty && Self.sentence(daveRefused.text) == Self.sentence(refused.text))
                #expect(!(try await app.services.accounts.accountExists(email: "dave@example.org")))

                // the admin sees who signs in with the provider
                let users = try await app.call(.get, "/api/v1/admin/users", token: admin).decode(AdminUserList.self).items
                let using = Set(users.filter(\.usesOpenID).map(\.email))
                #expect(using == ["alice@example.org", "bob@example.org"], "\(using)")
                let panel = try await app.send("/admin", method: .get, headers: [.cookie: "disposable_session=\(admin)"], body: nil)
                #expect(panel.text.components(separatedBy: "openid-badge").count - 1 == 2)

                // registration closed: the provider opens no new account, and still signs in linked ones
                try await app.call(
                    .patch, "/api/v1/admin/settings", body: InstanceSettingsJSON(registrationEnabled: false, defaultQuotaBytes: nil), token: admin)
                try await provider.setUser("erin-1", ["email": "erin@example.org", "email_verified": true])
                var erin = Browser()
                let closed = try await erin.signIn(app, provider, as: "erin-1")
                #expect(closed.status == .forbidden && erin.session == nil, "\(closed.text)")
                #expect(!(try await app.services.accounts.accountExists(email: "erin@example.org")))
                var alice2 = Browser()
                #expect(try await alice2.signIn(app, provider, as: "alice-1").status == .seeOther && alice2.session != nil)

                // an account the provider opened chooses a password (no current one to give), then may unlink
                let account = try await app.page(.get, "/account", cookie: alice2.session)
                #expect(account.text.contains("Choose a password") && !account.text.contains("id=\"current-password\""))
                let chosen = try await app.page(
                    .post, "/account/password", cookie: alice2.session, form: "newPassword=a+new+password&confirmation=a+new+password")
                #expect(chosen.status == .seeOther, "\(chosen.text.prefix(300))")
                #expect(
                    try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "alice@example.org", password: "a new password")).status
                        == .ok)
                #expect(try await app.call(.delete, "/api/v1/me/openid", token: alice2.session).status == .noContent)
                // hostile: with a password, the current one is asked again
                let without = try await app.call(.post, "/api/v1/me/password", json: ["newPassword": "yet another one"], token: alice2.session)
                #expect(without.status == .unprocessableContent || without.status == .forbidden, "\(without.text)")
            }
        } cleanup: {
            await provider.stop()
        }
    }

    @Test("The state belongs to one browser and one use; a code is used once; the provider's refusals are said")
    func stateAndCode() async throws {
        let provider = try await TestOpenIDProvider.start()
        try await withCleanup {
            try await TestApp.run(.sqlite, configure: { $0.openID = try? Self.settings(provider) }) { app in
                try await provider.setUser("ana-1", ["email": "ana@example.org", "email_verified": true])
                let problem = "This sign-in link is not valid any more"

                // the request to the provider: code flow, PKCE S256, a nonce, our redirect URI
                var browser = Browser()
                let authorization = try #require(URLComponents(string: try await browser.start(app)))
                let query = Dictionary(uniqueKeysWithValues: (authorization.queryItems ?? []).map { ($0.name, $0.value ?? "") })
                #expect(query["response_type"] == "code" && query["client_id"] == "disposable-tests" && query["code_challenge_method"] == "S256")
                #expect(query["redirect_uri"] == "https://disposable.test/login/openid/callback" && query["scope"] == "openid email profile")
                #expect((query["nonce"] ?? "").count >= 43 && (query["code_challenge"] ?? "").count == 43 && query["state"] == browser.state)
                let callback = try await provider.authorize(authorization.string!, as: "ana-1")

                // hostile: the callback opened in another browser (no state cookie, or another one's)
                var other = Browser()
                #expect(try await other.finish(app, callback).status == .badRequest)
                other.state = "not-\(browser.state!)"
                let wrongState = try await other.finish(app, callback)
                #expect(wrongState.status == .badRequest && wrongState.text.contains(problem) && other.session == nil)
                // …and leaves the attempt to its own browser, once
                #expect(try await browser.finish(app, callback).status == .seeOther && browser.session != nil)
                // hostile: replayed as it was, in the same browser
                var replay = Browser(state: browser.state)
                #expect(try await replay.finish(app, callback).text.contains(problem) && replay.session == nil)
                // hostile: its code with a fresh state — the provider refuses a code used once
                var fresh = Browser()
                _ = try await fresh.start(app)
                let code = try #require(URLComponents(string: "x:" + callback)?.queryItems?.first { $0.name == "code" }?.value)
                let reused = try await fresh.finish(app, "/login/openid/callback?code=\(code)&state=\(fresh.state!)")
                #expect(reused.status == .badRequest && reused.text.contains("refused the sign-in code") && fresh.session == nil, "\(reused.text)")

                // cancelled at the provider; and odd values
                var cancel = Browser()
                _ = try await cancel.start(app)
                let cancelled = try await cancel.finish(app, "/login/openid/callback?error=access_denied&state=\(cancel.state!)")
                #expect(cancelled.status == .forbidden && cancelled.text.contains("cancelled"))
                var odd = Browser()
                _ = try await odd.start(app)
                #expect(try await odd.finish(app, "/login/openid/callback?state=\(odd.state!)").status == .badRequest)
                var bare = Browser()
                #expect(try await bare.finish(app, "/login/openid/callback").status == .badRequest)
                // a `next` elsewhere is not followed
                var away = Browser()
                let start = try await app.send(
                    "/login/openid", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "next=https://evil.example/"))
                away.state = String(
                    (start.headers[values: .setCookie].first { $0.hasPrefix("disposable_openid=") } ?? "").dropFirst("disposable_openid=".count)
                        .prefix { $0 != ";" })
                let landed = try await away.finish(app, try await provider.authorize(try #require(start.headers[.location]), as: "ana-1"))
                #expect(landed.headers[.location] == "/events")
            }
        } cleanup: {
            await provider.stop()
        }
    }

    @Test("My account links and unlinks the provider; another's link, or another's session, is refused; --oidc-only hides passwords")
    func linkAndOnly() async throws {
        let provider = try await TestOpenIDProvider.start()
        try await withCleanup {
            try await TestApp.run(.sqlite, configure: { $0.openID = try? Self.settings(provider) }) { app in
                try await provider.setUser("frank-g", ["email": "frank.elsewhere@example.org", "email_verified": true])
                let frank = try await app.userToken(email: "frank@example.org")
                let gina = try await app.userToken(email: "gina@example.org")
                let account = try await app.send("/account", method: .get, headers: [.cookie: "disposable_session=\(frank)"], body: nil)
                #expect(account.text.contains("id=\"openid-link\">Sign in with Mock<"))

                // Frank links his provider account (another e-mail than his: he proved both)
                var browser = Browser(session: frank)
                let linked = try await browser.signIn(app, provider, as: "frank-g", from: "/account/openid/link")
                #expect(linked.headers[.location] == "/account?done=openid-linked", "\(linked.text)")
                let status = try await app.call(.get, "/api/v1/me/openid", token: frank)
                #expect(status["linked"] as? Bool == true && status.string("email") == "frank.elsewhere@example.org")
                var signIn = Browser()
                _ = try await signIn.signIn(app, provider, as: "frank-g")
                #expect(try await Self.me(app, signIn.session)["email"] as? String == "frank@example.org")

                // hostile: Gina links the same provider account — it is Frank's
                var ginas = Browser(session: gina)
                let taken = try await ginas.signIn(app, provider, as: "frank-g", from: "/account/openid/link")
                #expect(taken.headers[.location] == "/account?failed=openid-linked-elsewhere")
                let page = try await app.send(
                    "/account?failed=openid-linked-elsewhere", method: .get, headers: [.cookie: "disposable_session=\(gina)"], body: nil)
                #expect(page.text.contains("already linked to another account"))
                // hostile: a link Frank started, finished in Gina's browser
                var started = Browser(session: frank)
                let authorization = try await started.start(app, "/account/openid/link", form: "")
                var swapped = Browser(session: gina, state: started.state)
                let swap = try await swapped.finish(app, try await provider.authorize(authorization, as: "frank-g"))
                #expect(swap.headers[.location] == "/account?failed=openid-link")

                // Frank has a password: he may unlink; then the provider opens a new account no more (his e-mail is elsewhere)
                #expect(try await app.call(.delete, "/api/v1/me/openid", token: frank).status == .noContent)
                #expect(try await app.call(.get, "/api/v1/me/openid", token: frank)["linked"] as? Bool == false)
                try await app.call(.get, "/api/v1/me/openid").expectProblem(.unauthorized)
            }
            // --oidc-only: no password form, no password registration
            try await TestApp.run(.sqlite, configure: { $0.openID = try? Self.settings(provider, only: true) }) { app in
                let login = try await app.send("/login", method: .get, headers: [:], body: nil)
                #expect(login.text.contains("openid-button") && !login.text.contains("name=\"password\""))
                let register = try await app.send("/register", method: .get, headers: [:], body: nil)
                #expect(register.text.contains("openid-button") && !register.text.contains("name=\"password\""))
                let api = try await app.call(.post, "/api/v1/users", body: RegisterRequest(email: "h@example.org", password: "a good password"))
                #expect(api.expectProblem(.forbidden).contains("through its sign-in provider only"))
            }
            // no provider: the API says so
            try await TestApp.run(.sqlite) { app in
                let token = try await app.userToken()
                #expect(try await app.call(.get, "/api/v1/me/openid", token: token).expectProblem(.notFound).contains("no OpenID Connect provider"))
                #expect(try await app.send("/login/openid/callback?state=x&code=y", method: .get, headers: [:], body: nil).status == .notFound)
            }
        } cleanup: {
            await provider.stop()
        }
    }
}
