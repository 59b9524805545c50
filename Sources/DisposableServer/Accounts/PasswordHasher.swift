import HummingbirdBcrypt

/// bcrypt, run on a thread pool: a cost-12 hash takes ~0.25 s and must not block an event loop.
struct PasswordHasher: Sendable {
    let cost: UInt8

    func hash(_ password: String) async throws -> String {
        try await WorkPools.requests.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await WorkPools.requests.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A hash to verify against when there is no account, so "unknown email" costs as long as "wrong password".
    static let decoyHash = Bcrypt.hash("decoy password", cost: 12)
}
