import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// Forgotten passwords (ADM-3, P-I-110): a one-time link, by e-mail when the instance has a mail server, or
/// handed out by the admin. The link's token is stored hashed, lasts an hour, works once, and using it ends
/// every session of the account. Asking never tells whether an account exists: the answer is the same, and
/// the mail leaves after the answer.
package struct PasswordResetService: Sendable {
    let rows: PasswordResetRepository
    package let accounts: AccountService
    package let mailer: (any Mailer)?
    package let publicBaseURL: String
    package let clock: any AppClock
    package let logger: Logger
    /// Requests per address, and per account from anywhere (no one fills a stranger's inbox).
    package let limiter = RateLimiter([
        .address: RateLimit(burst: 10, refillEvery: .seconds(60)), .target: RateLimit(burst: 3, refillEvery: .seconds(600)),
    ])

    init(rows: PasswordResetRepository, accounts: AccountService, mailer: (any Mailer)?, publicBaseURL: String, clock: any AppClock, logger: Logger) {
        self.rows = rows
        self.accounts = accounts
        self.mailer = mailer
        self.publicBaseURL = publicBaseURL
        self.clock = clock
        self.logger = logger
    }

    package static let lifetime: TimeInterval = 3600

    /// "Forgot password?": sends a link if the account exists and mail can be sent; answers the same either way.
    package func request(email rawEmail: String?, client: String, language: String = "en") async throws {
        let email = try Credentials.email(rawEmail)
        try await limiter.take([.address(client), .target(email)])
        guard let (user, _) = try await accounts.users.findWithPassword(email: email) else { return }
        guard let mailer else {
            logger.notice("A password reset was asked for \(email), but no mail server is configured (--smtp-url): the admin can issue a link.")
            return
        }
        let (url, _) = try await issue(userID: user.id)
        let message = MailMessage(
            to: user.email, subject: language == "fr" ? "Réinitialiser votre mot de passe Disposable" : "Reset your Disposable password",
            body: Self.body(name: user.name, url: url, french: language == "fr"))
        // After the answer, so that its timing does not say whether the account exists.
        let logger = logger
        Task {
            do { try await mailer.send(message) } catch { logger.error("The password reset mail to \(email) was not sent: \(error)") }
        }
    }

    /// A new one-time link for an account (the admin's "reset link", or the mail's).
    package func issue(userID: String) async throws -> (url: String, expiresAt: Date) {
        let token = SecretToken.generate()
        let now = clock.now
        let expires = now + Self.lifetime
        try await rows.insert(tokenHash: SecretToken.hash(token), userID: userID, now: now, expiresAt: expires)
        return (publicBaseURL + "/reset/" + token, expires)
    }

    /// Whether a link can still be used (the reset page asks before showing its form).
    package func isValid(token: String) async throws -> Bool {
        guard Self.wellFormed(token) else { return false }
        return try await rows.isUsable(tokenHash: SecretToken.hash(token), now: clock.now)
    }

    /// Sets the new password, uses the link up and ends every session of the account, in one transaction.
    package func reset(token: String, password rawPassword: String?) async throws {
        let password = try Credentials.newPassword(rawPassword)
        guard Self.wellFormed(token) else { throw Self.expired }
        let hash = try await accounts.passwords.hash(password)
        let done = try await rows.use(tokenHash: SecretToken.hash(token), newPasswordHash: hash, now: clock.now)
        guard done else { throw Self.expired }
    }

    package static let expired = Problem(
        .notFound, "reset-link-expired", title: "Link expired",
        detail: "This link to reset a password has expired or was already used. Ask for a new one.")

    /// Links are 43 URL-safe characters; anything else is not worth a query.
    package static func wellFormed(_ token: String) -> Bool {
        (20...100).contains(token.utf8.count)
            && token.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    package static func body(name: String, url: String, french: Bool) -> String {
        french
            ? """
            Bonjour \(name),

            Pour choisir un nouveau mot de passe, ouvrez ce lien dans l'heure :
            \(url)

            Il ne sert qu'une fois. Si vous n'avez rien demandé, ignorez ce message : votre mot de passe ne change pas.
            """
            : """
            Hello \(name),

            To choose a new password, open this link within the hour:
            \(url)

            It works once. If you did not ask for it, ignore this message: your password stays as it is.
            """
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
