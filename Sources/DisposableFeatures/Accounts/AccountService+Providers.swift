import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// What signing in with an OpenID provider asks of accounts. The provider's link is written in the same unit of
/// work (the caller's transaction), so an account never exists without the link that opened it.
extension AccountService {
    /// The account with this address, and whether its owner ever proved the address theirs.
    package func findWithProof(email: String) async throws -> (User, proven: Bool)? {
        try await users.findWithProof(email: email)
    }

    /// A new account, without a password, whose address the provider verified; nil when the address is taken.
    package func createProvenAccount(email: String, name: String, now: Date, in db: any SQLDatabase) async throws -> User? {
        try await users.create(
            email: email, name: name, passwordHash: PasswordHasher.noPassword, isAdmin: false, termsVersion: TermsOfUse.version,
            emailProven: true, now: now, in: db)
    }

    /// The account's address is its owner's (the provider verified it).
    package func markEmailProven(_ userID: String, email: String, now: Date, in db: any SQLDatabase) async throws {
        try await users.markEmailProven(userID, email: email, now: now, in: db)
    }
}
