import Crypto
import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// Sign in with OpenID Connect: the authorization code flow with PKCE, `state` and `nonce`, and the rules
/// that say which account a provider's person opens. A person is known by the provider's issuer and subject, never
/// by an e-mail alone: an e-mail matches an existing account only when the provider says it verified it, and then
/// the two are linked for good. Registration closed, the provider opens no new account.
package struct OpenIDService: Sendable {
    package let settings: OpenIDSettings
    package let provider: OpenIDProvider
    package let transactions: Transactions
    package let clock: any AppClock
    package let accounts: AccountService
    let links: OpenIDRepository
    package let logger: Logger
    /// Where the provider sends people back: `/login/openid/callback` under the public URL, as registered there.
    package let redirectURI: String

    init(
        settings: OpenIDSettings, outbound: OutboundHTTP, transactions: Transactions, links: OpenIDRepository, clock: any AppClock,
        accounts: AccountService,
        publicBaseURL: String, logger: Logger
    ) {
        self.settings = settings
        provider = OpenIDProvider(settings: settings, outbound: outbound)
        self.transactions = transactions
        self.clock = clock
        self.accounts = accounts
        self.links = links
        self.logger = logger
        redirectURI = publicBaseURL + "/login/openid/callback"
    }

    /// Ten minutes to sign in at the provider.
    package static let attemptLifetime: TimeInterval = 600

    /// Where to send the browser, and the `state` it must bring back in its cookie.
    package struct Start: Sendable {
        package let url: String
        package let state: String

        package init(url: String, state: String) {
            self.url = url
            self.state = state
        }
    }

    /// Sign-ins begun per address: each keeps a row for ten minutes.
    package let starts = RateLimiter(RateLimit(burst: 20, refillEvery: .seconds(15)))

    /// A sign-in (or, with `linking`, a link to a signed-in account) sent to the provider.
    package func start(next: String, linking user: User? = nil, client: String) async throws -> Start {
        try await starts.take(address: client)
        let discovery = try await reach { try await provider.discovery(now: clock.now) }
        let state = SecretToken.generate()
        let attempt = OpenIDRepository.Attempt(nonce: SecretToken.generate(), verifier: SecretToken.generate(), userID: user?.id, next: next)
        let now = clock.now
        try await links.save(attempt, stateHash: SecretToken.hash(state), expires: now.addingTimeInterval(Self.attemptLifetime), now: now)
        guard var url = URLComponents(string: discovery.authorizationEndpoint) else { throw Self.unreachable }
        url.queryItems =
            (url.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: settings.clientID),
                URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: "openid email profile"),
                URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: attempt.nonce),
                URLQueryItem(name: "code_challenge", value: Self.challenge(attempt.verifier)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        // `+` is a space to some providers' query parsers: spell it out.
        url.percentEncodedQuery = url.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let address = url.string else { throw Self.unreachable }
        return Start(url: address, state: state)
    }

    /// What the callback came to.
    package enum Outcome: Sendable {
        case signedIn(token: String, next: String)
        case linked
    }

    /// The provider's answer: `state` must be the one this browser holds (`cookieState`) and not used before, the
    /// code must trade for an ID token signed by the provider, for this client, with this attempt's nonce.
    package func finish(
        state: String?, cookieState: String?, code: String?, error: String?, current: User?, continuing identity: Identity? = nil,
        client: String, device: String?
    ) async throws -> Outcome {
        guard let state, let cookieState, !state.isEmpty, state.equalsInConstantTime(cookieState),
            let attempt = try await links.take(stateHash: SecretToken.hash(state), now: clock.now)
        else {
            throw Problem(
                .badRequest, "openid-state", title: "Sign-in link not valid",
                detail: "This sign-in link is not valid any more (used already, too old, or opened in another browser). Start again.")
        }
        if error != nil {
            throw Problem(.forbidden, "openid-cancelled", title: "Sign-in cancelled", detail: "The sign-in was cancelled at the provider.")
        }
        guard let code, !code.isEmpty, code.utf8.count <= 2048 else {
            throw Problem(.badRequest, "openid-code", title: "No code", detail: "The provider sent no sign-in code. Start again.")
        }
        let token = try await idToken(code: code, attempt: attempt)
        if let userID = attempt.userID {
            try await link(token, to: userID, current: current)
            return .linked
        }
        let user = try await account(for: token, client: client)
        return .signedIn(token: try await accounts.session(for: user, device: device, continuing: identity), next: attempt.next)
    }

    private func idToken(code: String, attempt: OpenIDRepository.Attempt) async throws -> IDToken {
        let raw: String
        do {
            raw = try await provider.idToken(code: code, verifier: attempt.verifier, redirectURI: redirectURI)
        } catch OpenIDProvider.Failure.codeRefused {
            throw Problem(
                .badRequest, "openid-code", title: "Sign-in code refused",
                detail: "The provider refused the sign-in code (used already, or too old). Start again.")
        } catch {
            throw Self.unreachable
        }
        do {
            let keys = try await reach { try await provider.signingKeys(now: clock.now) }
            do {
                return try await IDToken.checked(raw, keys: keys, settings: settings, nonce: attempt.nonce, now: clock.now)
            } catch IDToken.Rejection.signature {
                // Perhaps a key the provider started signing with since: its set once more.
                let fresh = try await reach { try await provider.signingKeys(refresh: true, now: clock.now) }
                return try await IDToken.checked(raw, keys: fresh, settings: settings, nonce: attempt.nonce, now: clock.now)
            }
        } catch let rejection as IDToken.Rejection {
            // The person reads one sentence; whoever runs the server needs the reason (a rotated key, a clock apart…).
            logger.warning("An ID token from \(settings.issuer) was refused (\(rejection)): no one was signed in.")
            throw Problem(
                .badRequest, "openid-token", title: "Sign-in not trusted",
                detail: "The provider’s answer could not be trusted (signature, audience, time or nonce did not match), so no one was signed in.")
        }
    }

    /// The account a provider's person opens: the one linked to them; else, when the provider verified their
    /// e-mail, the account with that address if its address was proven too (a mailed link, a provider) and it is
    /// not an admin's — linked from now on; else a new one, if registration is open and the address is free.
    /// An address anyone could have typed (no mail server checks sign-ups by default) never opens its account: a
    /// stranger could have made it to receive the owner (DECISIONS).
    private func account(for token: IDToken, client: String) async throws -> User {
        if let userID = try await links.account(issuer: settings.issuer, subject: token.sub), let user = try await accounts.user(id: userID) {
            return user
        }
        guard let raw = token.email, let email = try? Credentials.email(raw) else {
            throw Problem(
                .unprocessableContent, "openid-no-email", title: "No e-mail address",
                detail: "The provider did not share an e-mail address, so no account can be opened. Allow it to share your e-mail and try again.")
        }
        // Refused the same way whether or not an account has the address: the answer tells no one who is here.
        guard token.verifiedEmail != nil else {
            throw Problem(
                .forbidden, "openid-email-unverified", title: "E-mail not confirmed",
                detail:
                    "The provider has not confirmed that “\(email)” is yours, so it cannot sign you in here. Confirm the address at the provider and try again, or sign in with a password and link the provider on My account."
            )
        }
        if let (existing, proven) = try await accounts.findWithProof(email: email) {
            guard proven, !existing.isAdmin else {
                throw Problem.conflict(
                    "openid-email-unproven",
                    "An account here already uses “\(email)”, but it never proved that this address is its own, so the provider cannot open it. If it is yours, sign in with its password and link the provider on My account; if it is not, ask the instance's admin."
                )
            }
            try await transactions.transaction { [links, settings, clock] db in
                try await links.insert(issuer: settings.issuer, subject: token.sub, userID: existing.id, email: email, now: clock.now, in: db)
            }
            return existing
        }
        try await accounts.admitRegistration(client: client)
        let name = try DisplayName.validate(
            token.name.flatMap { $0.isEmpty ? nil : String($0.prefix(80)) } ?? String(email.prefix { $0 != "@" }), max: 80)
        let now = clock.now
        let created = try await transactions.transaction { [accounts, links, settings] db -> User? in
            guard let user = try await accounts.createProvenAccount(email: email, name: name, now: now, in: db) else { return nil }
            try await links.insert(issuer: settings.issuer, subject: token.sub, userID: user.id, email: email, now: now, in: db)
            return user
        }
        guard let created else { throw Problem.conflict("email-taken", "An account with the email address “\(email)” already exists.") }
        return created
    }

    /// Links the provider's person to the signed-in account that asked, if no other account has them.
    private func link(_ token: IDToken, to userID: String, current: User?) async throws {
        guard current?.id == userID else {
            throw Problem(.forbidden, "openid-link", title: "Not your account", detail: "Sign in to the account you are linking first.")
        }
        if let other = try await links.account(issuer: settings.issuer, subject: token.sub), other != userID {
            throw Problem.conflict("openid-linked-elsewhere", "This provider account is already linked to another account here.")
        }
        let email = token.email.flatMap { try? Credentials.email($0) }
        try await transactions.transaction { [links, accounts, settings, clock] db in
            try await links.insert(issuer: settings.issuer, subject: token.sub, userID: userID, email: email, now: clock.now, in: db)
            // The provider vouches for the account's own address: from now on it is proven.
            if token.verifiedEmail != nil, let email { try await accounts.markEmailProven(userID, email: email, now: clock.now, in: db) }
        }
    }

    /// The provider as a signed-in person sees it: linked or not, and how the button reads.
    package func status(of user: User) async throws -> OpenIDStatusJSON {
        let link = try await links.link(of: user.id, issuer: settings.issuer)
        return OpenIDStatusJSON(
            issuer: settings.issuer, buttonLabel: settings.buttonLabel, linked: link != nil, email: link?.email, linkedAt: link?.linkedAt,
            hasPassword: try await accounts.hasPassword(user))
    }

    /// Unlinks the provider — unless it is the only way into the account.
    package func unlink(_ user: User) async throws {
        guard try await accounts.hasPassword(user) else {
            throw Problem.conflict(
                "openid-only-way-in",
                "This account has no password, so without the provider no one could sign in to it. Choose a password first (My account, or “Forgot password?” on the sign-in page)."
            )
        }
        try await links.delete(userID: user.id, issuer: settings.issuer)
    }

    package static let unreachable = Problem(
        .badGateway, "openid-unreachable", title: "Provider unreachable",
        detail: "The sign-in provider could not be reached or answered oddly. Try again in a moment, or sign in with your password.")

    private func reach<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch { throw Self.unreachable }
    }

    /// PKCE's S256 challenge: the verifier's SHA-256, URL-safe base64 without padding (RFC 7636 §4.2).
    package static func challenge(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
