import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// Registering an organizer's account (ADM-3). With a mail server, an account exists only once its owner opens
/// the link mailed to the address, and the answer is the same whether or not the address already has an account
/// (whose owner is told by mail instead), so registering does not reveal who uses the instance. Without one,
/// the account is made at once and a taken address is said — see DECISIONS.
package struct SignUpService: Sendable {
    package let accounts: AccountService
    let pending: PendingSignUpRepository
    package let mailer: (any Mailer)?
    package let publicBaseURL: String
    package let clock: any AppClock
    package let logger: Logger
    /// `--oidc-only`: accounts are opened through the OpenID Connect provider alone, never with a password.
    package var passwordsOff = false
    /// Mails per address from anywhere, so no one fills a stranger's inbox through this form.
    package let mailLimiter = RateLimiter([.target: RateLimit(burst: 3, refillEvery: .seconds(600))])

    package static let lifetime: TimeInterval = 24 * 3600

    package static let passwordsOffProblem = Problem(
        .forbidden, "passwords-off", title: "Registration through the provider",
        detail: "This server opens accounts through its sign-in provider only: use its button on the sign-in page.")

    package enum Outcome: Sendable {
        case created(User)
        /// A mail went to the address: a link to confirm, or a note that it already has an account.
        case confirmationSent
    }

    package func register(
        email: String?, password: String?, name: String?, termsVersion: String? = nil, client: String, language: String = "en"
    ) async throws -> Outcome {
        guard !passwordsOff else { throw Self.passwordsOffProblem }
        try await accounts.admitRegistration(client: client)
        // Checked and hashed before the address is looked up, so both answers take the same time.
        let account = try await accounts.newAccount(email: email, password: password, name: name, termsVersion: termsVersion)
        guard let mailer else { return .created(try await accounts.create(account, isAdmin: false)) }
        try await mailLimiter.take([.target(account.email)])
        let french = language == "fr"
        let message: MailMessage
        if try await accounts.accountExists(email: account.email) {
            message = MailMessage(
                to: account.email, subject: french ? "Vous avez déjà un compte Disposable" : "You already have a Disposable account",
                body: Self.alreadyBody(baseURL: publicBaseURL, french: french))
        } else {
            let token = SecretToken.generate()
            let now = clock.now
            try await pending.add(tokenHash: SecretToken.hash(token), account: account, now: now, expiresAt: now + Self.lifetime)
            message = MailMessage(
                to: account.email, subject: french ? "Confirmez votre compte Disposable" : "Confirm your Disposable account",
                body: Self.confirmBody(name: account.name, url: publicBaseURL + "/register/confirm/" + token, french: french))
        }
        // After the answer, so that its timing does not say which mail it is.
        let logger = logger
        Task {
            do { try await mailer.send(message) } catch { logger.error("The registration mail to \(account.email) was not sent: \(error)") }
        }
        return .confirmationSent
    }

    /// Whether a confirmation link can still be used (its page asks before showing its button).
    package func isValid(token: String) async throws -> Bool {
        guard PasswordResetService.wellFormed(token) else { return false }
        return try await pending.isValid(tokenHash: SecretToken.hash(token), now: clock.now)
    }

    /// Opens the account a mailed link holds; the link then no longer works.
    package func confirm(token: String) async throws -> User {
        guard PasswordResetService.wellFormed(token),
            let account = try await pending.take(tokenHash: SecretToken.hash(token), now: clock.now)
        else { throw Self.expired }
        return try await accounts.create(account, isAdmin: false, emailProven: true)
    }

    package static let expired = Problem(
        .notFound, "sign-up-link-expired", title: "Link expired",
        detail: "This link to confirm an account has expired or was already used. Register again.")

    package static func confirmBody(name: String, url: String, french: Bool) -> String {
        french
            ? """
            Bonjour \(name),

            Pour ouvrir votre compte Disposable, ouvrez ce lien dans les 24 heures :
            \(url)

            Si vous n'avez rien demandé, ignorez ce message : aucun compte ne sera créé.
            """
            : """
            Hello \(name),

            To open your Disposable account, follow this link within 24 hours:
            \(url)

            If you did not ask for it, ignore this message: no account will be made.
            """
    }

    /// Names no one: the name was typed by whoever asked, not by the account's owner.
    package static func alreadyBody(baseURL: String, french: Bool) -> String {
        french
            ? """
            Bonjour,

            Quelqu'un a voulu créer un compte Disposable avec cette adresse, mais elle en a déjà un.
            Pour vous connecter : \(baseURL)/login
            Mot de passe oublié : \(baseURL)/forgot

            Si ce n'était pas vous, ignorez ce message : rien n'a changé.
            """
            : """
            Hello,

            Someone asked to make a Disposable account with this address, but it already has one.
            To sign in: \(baseURL)/login
            Forgot your password: \(baseURL)/forgot

            If it was not you, ignore this message: nothing has changed.
            """
    }
}
