import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// App passwords: a device's own password (a phone's backup app, a computer's file manager) that opens the library
/// over WebDAV and nothing else — not the web, not the API — so each can be revoked alone and the account's own
/// password is never typed into another app. Wrong ones count against the log-in limits.
public struct AppPasswordService: Sendable {
    let passwords: AppPasswordRepository
    /// Asks for the account's password again before one is made.
    package let accounts: AccountService
    package let clock: any AppClock
    /// The log-in limiter, shared: guessing an app password is guessing a password.
    package let limiter: RateLimiter

    init(passwords: AppPasswordRepository, accounts: AccountService, clock: any AppClock, limiter: RateLimiter) {
        self.passwords = passwords
        self.accounts = accounts
        self.clock = clock
        self.limiter = limiter
    }

    /// At most this many per account.
    package static let limit = 20
    /// The last use is written at most this often per password (clients sign in on every request).
    package static let touchEvery: TimeInterval = 60

    package func create(_ input: AppPasswordInput, for user: User, client: String) async throws -> NewAppPasswordJSON {
        let name = try DisplayName.validate(input.name, max: 60)
        try await accounts.confirmPassword(of: user, current: input.currentPassword, client: client)
        let secret = Self.generate()
        let record = AppPasswordJSON(id: newID(), name: name, createdAt: clock.now)
        guard try await passwords.insert(record, userID: user.id, secretHash: Self.hash(secret), limit: Self.limit) else {
            throw Problem.conflict(
                "too-many-app-passwords", "You have \(Self.limit) app passwords already. Revoke one you no longer use, then make a new one.")
        }
        return NewAppPasswordJSON(id: record.id, name: record.name, password: secret, createdAt: record.createdAt)
    }

    package func list(for user: User) async throws -> [AppPasswordJSON] {
        try await passwords.list(userID: user.id)
    }

    package func revoke(_ id: String, for user: User) async throws {
        guard try await passwords.delete(id: id, userID: user.id) else {
            throw Problem.notFound("There is no app password of yours with this id.")
        }
    }

    /// The account `email` and `secret` open; 401 otherwise (the same answer whether the address has an account),
    /// 429 after too many wrong tries.
    package func account(email rawEmail: String, secret: String, client: String) async throws -> User {
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        guard !email.isEmpty, email.utf8.count <= 254, secret.utf8.count <= 200 else { throw Self.refused }
        let ticket = try await limiter.take([.pair(client, email), .address(client), .target(email)])
        guard let (password, user) = try await passwords.find(secretHash: Self.hash(secret), email: email) else { throw Self.refused }
        await limiter.giveBack(ticket)
        let now = clock.now
        if password.lastUsedAddress != client || (password.lastUsedAt.map { now.timeIntervalSince($0) >= Self.touchEvery } ?? true) {
            try await passwords.touch(id: password.id, at: now, address: client)
        }
        return user
    }

    package static let refused = Problem(
        .unauthorized, "wrong-app-password", title: "Wrong email or app password",
        detail:
            "Sign in with your account's email address and an app password made in My account → Devices. Your account's own password does not open WebDAV."
    )

    /// 24 letters and digits with nothing to mistake (no l, 1, o, 0), in groups of four: 120 random bits that a
    /// person can type into a phone.
    package static func generate() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<24).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 24, by: 4).map { String(letters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// What is stored: the SHA-256 of the secret as typed leniently (case, spaces and dashes do not matter).
    package static func hash(_ secret: String) -> String {
        SecretToken.hash(String(secret.lowercased().filter { $0 != "-" && $0 != " " }))
    }
}
