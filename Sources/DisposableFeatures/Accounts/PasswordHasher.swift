import DisposableCore
import DisposablePlatform
import HummingbirdBcrypt
import Synchronization

/// bcrypt, run on a thread pool: a cost-12 hash takes ~0.25 s and must not block an event loop.
package struct PasswordHasher: Sendable {
    package let cost: UInt8

    package func hash(_ password: String) async throws -> String {
        try await WorkPools.requests.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// No account (`hash` nil), or an account without a password, never matches, and takes as long to say so.
    package func verify(_ password: String, hash: String?) async throws -> Bool {
        let usable = hash != nil && hash != Self.noPassword
        let cost = cost
        let matches = try await WorkPools.requests.runIfActive {
            Bcrypt.verify(password, hash: usable ? hash! : Self.decoyHash(cost: cost))
        }
        return usable && matches
    }

    /// What an account opened by an OpenID provider holds instead of a hash until its owner sets a password.
    package static let noPassword = "!"

    /// Hashes to verify against when there is no account, so "unknown email" costs as long as "wrong password": made
    /// at the cost real hashes are made at, once per cost.
    private static let decoys = Mutex<[UInt8: String]>([:])

    private static func decoyHash(cost: UInt8) -> String {
        if let made = decoys.withLock({ $0[cost] }) { return made }
        let made = Bcrypt.hash("decoy password", cost: cost)
        decoys.withLock { $0[cost] = made }
        return made
    }
}
