import HummingbirdBcrypt

/// bcrypt, run on a thread pool: a cost-12 hash takes ~0.25 s and must not block an event loop.
struct PasswordHasher: Sendable {
    let cost: UInt8

    func hash(_ password: String) async throws -> String {
        try await WorkPools.requests.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// An account without a password never matches one, and takes as long to say so.
    func verify(_ password: String, hash: String) async throws -> Bool {
        let usable = hash != Self.noPassword
        let matches = try await WorkPools.requests.runIfActive { Bcrypt.verify(password, hash: usable ? hash : Self.decoyHash) }
        return usable && matches
    }

    /// What an account opened by an OpenID provider holds instead of a hash until its owner sets a password.
    static let noPassword = "!"

    /// A hash to verify against when there is no account, so "unknown email" costs as long as "wrong password".
    static let decoyHash = Bcrypt.hash("decoy password", cost: 12)
}
