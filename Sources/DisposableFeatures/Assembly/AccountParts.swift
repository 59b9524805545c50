import DisposableCore
import DisposablePlatform
import Foundation

/// Accounts and what hangs on them: signing in (passwords, app passwords, OpenID), signing up, resets, profiles.
package struct AccountParts: Sendable {
    package let accounts: AccountService
    /// Devices' own passwords for WebDAV.
    package let appPasswords: AppPasswordService
    package let profiles: ProfileService
    /// Which of an event's shooters have a picture.
    package let pictures: ShooterPictures
    package let passwordResets: PasswordResetService
    package let signUps: SignUpService
    /// Sign in with an OpenID Connect provider, when one is set.
    package let openID: OpenIDService?

    package init(_ platform: PlatformParts) {
        let (configuration, rows, clock, logger) = (platform.configuration, platform.rows, platform.clock, platform.logger)
        accounts = AccountService(rows: rows, transactions: platform.transactions, clock: clock, configuration: configuration)
        appPasswords = AppPasswordService(
            passwords: AppPasswordRepository(database: rows), accounts: accounts, clock: clock, limiter: accounts.loginLimiter)
        pictures = ShooterPictures(users: UserRepository(database: rows), recent: platform.recentReads.pictures)
        profiles = ProfileService(
            users: UserRepository(database: rows), blobs: platform.blobs, ingest: platform.ingest,
            avatarPolicy: .avatar(maxPixels: configuration.maxPixels))
        passwordResets = PasswordResetService(
            rows: PasswordResetRepository(database: rows), accounts: accounts, mailer: platform.mailer,
            publicBaseURL: configuration.publicBaseURL, clock: clock, logger: logger)
        signUps = SignUpService(
            accounts: accounts, pending: PendingSignUpRepository(database: rows), mailer: platform.mailer,
            publicBaseURL: configuration.publicBaseURL, clock: clock, logger: logger, passwordsOff: configuration.openID?.only == true)
        openID = configuration.openID.map { [accounts] settings in
            OpenIDService(
                settings: settings, outbound: platform.outbound, transactions: platform.transactions,
                links: OpenIDRepository(database: rows), clock: clock, accounts: accounts,
                publicBaseURL: configuration.publicBaseURL, logger: logger)
        }
    }

    /// The media links' signing key, kept in the instance's settings, read at start-up.
    package func loadSigningKey(into signer: MediaSigner) async throws {
        try await signer.load(from: accounts.settings)
    }
}
