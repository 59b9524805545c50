import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Accounts and sessions: registering, signing in and out, who holds a token, the admin (ADM-2, ADM-3).
/// Owns the log-in and registration limiters, shared by the API and the web forms.
public struct AccountService: Sendable {
    package let transactions: Transactions
    package let clock: any AppClock
    let users: UserRepository
    let tokens: AccessTokenRepository
    let settings: InstanceSettingsRepository
    package let passwords: PasswordHasher
    /// Failed log-ins per address and account, per address, per account.
    package let loginLimiter: RateLimiter
    /// Registrations per client address, successful or not.
    package let registrationLimiter: RateLimiter

    /// `disposable admin create` builds this and nothing else (the composition root reads the settings from the
    /// configuration).
    init(
        transactions: Transactions, users: UserRepository, tokens: AccessTokenRepository, settings: InstanceSettingsRepository,
        clock: any AppClock, passwordHashCost: UInt8, loginLimits: [RateLimiter.Scope: RateLimit], registrationLimit: RateLimit
    ) {
        self.transactions = transactions
        self.clock = clock
        self.users = users
        self.tokens = tokens
        self.settings = settings
        passwords = PasswordHasher(cost: passwordHashCost)
        loginLimiter = RateLimiter(loginLimits)
        registrationLimiter = RateLimiter(registrationLimit)
    }

    package func registrationEnabled() async throws -> Bool {
        try await settings.registrationEnabled()
    }

    /// An organizer may register: registration is open and the address is within its limit (ADM-3).
    package func admitRegistration(client: String) async throws {
        guard try await settings.registrationEnabled() else {
            throw Problem(.forbidden, "registration-disabled", title: "Registration disabled", detail: "Account registration is disabled")
        }
        try await registrationLimiter.take(address: client)
    }

    /// Creates an account with valid credentials and a free email: registering, or the admin adding one (ADM-4).
    package func addAccount(email rawEmail: String?, password rawPassword: String?, name rawName: String?, isAdmin: Bool) async throws -> User {
        try await create(try await newAccount(email: rawEmail, password: rawPassword, name: rawName), isAdmin: isAdmin)
    }

    /// Checks what a new account is made of and hashes its password; nothing is stored yet.
    package func newAccount(email rawEmail: String?, password rawPassword: String?, name rawName: String?, termsVersion: String? = nil) async throws
        -> NewAccount
    {
        let email = try Credentials.email(rawEmail)
        let password = try Credentials.newPassword(rawPassword)
        let name = try DisplayName.validate(rawName.flatMap { $0.isEmpty ? nil : $0 } ?? String(email.prefix { $0 != "@" }), max: 80)
        if let termsVersion, termsVersion.isEmpty || termsVersion.count > 40 {
            throw Problem.invalidField("acceptedTerms", "acceptedTerms must be the version of the terms the organizer accepted.")
        }
        return NewAccount(email: email, name: name, passwordHash: try await passwords.hash(password), termsVersion: termsVersion)
    }

    /// Stores a checked new account; 409 when its email is taken.
    package func create(_ account: NewAccount, isAdmin: Bool, emailProven: Bool = false) async throws -> User {
        let now = clock.now
        let users = users
        let created = try await transactions.transaction { db in
            try await users.create(
                email: account.email, name: account.name, passwordHash: account.passwordHash, isAdmin: isAdmin, termsVersion: account.termsVersion,
                emailProven: emailProven, now: now, in: db)
        }
        guard let user = created else {
            throw Problem.conflict("email-taken", "An account with the email address “\(account.email)” already exists. Try logging in.")
        }
        return user
    }

    /// Whether an account has this (normalised) email.
    package func accountExists(email: String) async throws -> Bool {
        try await users.findWithPassword(email: email) != nil
    }

    /// Checks the credentials and issues a session token. Each attempt takes its tokens before the password is
    /// checked and gets them back when it is right, so only failures count, and parallel ones cannot slip past.
    package func signIn(
        email rawEmail: String?, password rawPassword: String?, client: String, device: String? = nil, continuing identity: Identity? = nil
    ) async throws -> (token: String, user: User) {
        let email = try Credentials.email(rawEmail)
        let password = try Credentials.loginPassword(rawPassword)
        let ticket = try await loginLimiter.take([.pair(client, email), .address(client), .target(email)])
        let account = try await users.findWithPassword(email: email)
        // Verify against a decoy when the account is unknown, so timing does not reveal which emails exist.
        let matches = try await passwords.verify(password, hash: account?.passwordHash)
        guard let (user, _) = account, matches else {
            throw Problem(
                .unauthorized, "wrong-credentials", title: "Wrong email or password",
                detail: "The email address or the password is wrong. Check them and try again.")
        }
        await loginLimiter.giveBack(ticket)
        return (try await session(for: user, device: device, continuing: identity), user)
    }

    /// A new session token for an account that just proved who it is (signed in, or registered a moment ago);
    /// `device` names it on the account's sessions page. A guest who signs in goes on as that guest
    /// (`keepGuest`).
    package func session(for user: User, device: String? = nil, continuing identity: Identity? = nil) async throws -> String {
        try await keepGuest(identity, for: user)
        return try await tokens.issue(userID: user.id, device: device, now: clock.now)
    }

    /// The account's sessions: device, since when, last seen, and which one is asking.
    package func sessions(of user: User, current: String) async throws -> [SessionJSON] {
        try await tokens.sessions(userID: user.id).map { session in
            SessionJSON(
                id: Self.sessionID(session.hash), device: session.device, createdAt: session.createdAt, lastSeenAt: session.lastUsedAt,
                current: session.hash == current)
        }
    }

    /// Signs out one of the account's sessions, by the id `sessions` gives; 404 when it is not theirs.
    package func endSession(_ id: String, of user: User) async throws {
        guard let match = try await tokens.sessions(userID: user.id).first(where: { Self.sessionID($0.hash) == id }) else {
            throw Problem.notFound("There is no session of yours with this id.")
        }
        try await tokens.revoke(hash: match.hash)
    }

    /// Signs out every session of the account but the one asking.
    package func endOtherSessions(of user: User, keeping current: String) async throws {
        for session in try await tokens.sessions(userID: user.id) where session.hash != current { try await tokens.revoke(hash: session.hash) }
    }

    /// A session's public id: the start of its token's hash (the token itself is never shown again).
    package static func sessionID(_ hash: String) -> String { String(hash.prefix(16)) }

    /// Ends the session of this token.
    package func signOut(_ identity: Identity) async throws {
        try await tokens.revoke(hash: identity.tokenHash)
    }

    /// Who holds a token, if anyone.
    package func identity(for token: String) async throws -> Identity? {
        try await tokens.identity(for: token)
    }

    /// The same, for a token known by its hash (a live stream checking its token is still good).
    package func identity(tokenHash: String) async throws -> Identity? {
        try await tokens.identity(hash: tokenHash)
    }

    public enum AdminOutcome: Sendable, Equatable {
        case created(userID: String)
        /// Only for the wizard: an admin appeared meanwhile, so the wizard is closed.
        case adminAlreadyExists
        case emailTaken
        /// Only for the wizard: the setup code was missing or wrong.
        case wrongSetupCode
    }

    /// The code `/setup` asks for while the instance has no admin (made now if needed); nil once it has one.
    public func setupCode() async throws -> String? {
        let users = users
        return try await transactions.transaction { db in
            try await users.adminExists(in: db) ? nil : try await SetupCode.current(in: db)
        }
    }

    /// Creates an admin account (the first-run wizard and `disposable admin create`). With `setupCode` (the
    /// wizard), it is refused once any admin exists or when the code is not the one in the log — checked in the
    /// same transaction as the insert, so two racing wizard submissions cannot both win; wrong codes are counted
    /// per address like wrong passwords.
    public func createAdmin(
        email rawEmail: String, password rawPassword: String, name rawName: String?, setupCode: String? = nil, client: String = "local"
    ) async throws -> AdminOutcome {
        let onlyIfFirst = setupCode != nil
        let ticket = onlyIfFirst ? try await loginLimiter.take([.address(client)]) : nil
        let email = try Credentials.email(rawEmail)
        let password = try Credentials.newPassword(rawPassword)
        let name = try DisplayName.validate(rawName ?? String(email.prefix { $0 != "@" }), max: 80)
        let hash = try await passwords.hash(password)
        let now = clock.now
        let users = users
        let outcome = try await transactions.transaction { db -> AdminOutcome in
            try await users.serialiseAdminChanges(in: db)
            if onlyIfFirst, try await users.adminExists(in: db) { return .adminAlreadyExists }
            if let setupCode, try await !SetupCode.matches(setupCode, in: db) { return .wrongSetupCode }
            guard let user = try await users.create(email: email, name: name, passwordHash: hash, isAdmin: true, now: now, in: db) else {
                return .emailTaken
            }
            try await SetupCode.remove(in: db)
            return .created(userID: user.id)
        }
        if let ticket, outcome != .wrongSetupCode { await loginLimiter.giveBack(ticket) }
        return outcome
    }

    package func user(id: String) async throws -> User? {
        try await users.find(id: id)
    }

    /// A signed-in user changes their password: the current one first (counted like a log-in) — unless the account
    /// has none yet (its OpenID provider opened it) — then every other session of theirs ends; the one asking stays.
    /// Sets a new password and ends the account's other sessions, and its app passwords unless asked to keep them.
    package func changePassword(
        of user: User, current: String?, new: String?, keeping tokenHash: String, revokingAppPasswords: Bool = true, client: String
    ) async throws {
        let newPassword = try Credentials.newPassword(new)
        try await confirmPassword(of: user, current: current, client: client)
        let newHash = try await passwords.hash(newPassword)
        try await transactions.transaction { db in
            try await UserRepository.setPassword(hash: newHash, userID: user.id, in: db)
            try await AccessTokenRepository.endSessions(userID: user.id, keeping: tokenHash, in: db)
            if revokingAppPasswords { try await AppPasswordRepository.revokeAll(userID: user.id, in: db) }
        }
    }

    /// Checks the account's password typed again (under the log-in limits); an account without one is not asked.
    package func confirmPassword(of user: User, current: String?, client: String) async throws {
        guard let (_, hash) = try await users.findWithPassword(email: user.email) else { throw Problem.notFound("There is no such account.") }
        if hash != PasswordHasher.noPassword {
            guard let currentPassword = current, !currentPassword.isEmpty else {
                throw Problem.invalidField("currentPassword", "Please enter your current password.")
            }
            let ticket = try await loginLimiter.take([.pair(client, user.email), .address(client), .target(user.email)])
            guard try await passwords.verify(currentPassword, hash: hash) else {
                throw Problem(
                    .forbidden, "wrong-password", title: "Wrong password", detail: "The current password is wrong. Check it and try again.")
            }
            await loginLimiter.giveBack(ticket)
        }
    }

    /// Whether the account has a password (one its OpenID provider opened has none until its owner chooses one).
    package func hasPassword(_ user: User) async throws -> Bool {
        try await users.findWithPassword(email: user.email)?.passwordHash != PasswordHasher.noPassword
    }

    /// What the account's events use of its quota (ADM-5).
    package func usage(of user: User) async throws -> Quota.Usage? {
        try await users.usage(userID: user.id)
    }

    // MARK: The last admin

    /// An instance always keeps an admin: without one, `/setup` would open again to whoever finds it. The one rule
    /// for every path that takes an admin away — erasing an account (`DELETE /api/v1/me`, the panel, the page) and
    /// taking away admin rights.
    package static let lastAdmin = Problem.conflict(
        "last-admin", "This is the instance's only admin account: make another account admin first, then try again.")

    /// Before an account is erased: it stops being an admin, or the erasure is refused when it is the only one —
    /// checked and done in `setAdmin`'s serialised transaction, so two admins erasing themselves at once cannot
    /// both go (a check made before the erasure could pass for both).
    package func stepDownBeforeErasing(_ userID: String) async throws {
        guard try await user(id: userID)?.isAdmin == true else { return }
        try await setAdmin(userID, false)
    }

    /// Gives or takes away admin rights; taking them from the only admin is refused, checked in the same
    /// transaction (serialised on PostgreSQL like `createAdmin`) so two admins cannot demote each other at once.
    package func setAdmin(_ userID: String, _ isAdmin: Bool) async throws {
        let users = users
        try await transactions.transaction { db in
            try await users.serialiseAdminChanges(in: db)
            if !isAdmin, try await !users.otherAdminExists(besides: userID, in: db) { throw Self.lastAdmin }
            try await users.setAdmin(userID, isAdmin, in: db)
        }
    }

    public func adminExists() async throws -> Bool {
        let users = users
        return try await transactions.read { db in try await users.adminExists(in: db) }
    }
}

/// A new account's checked details, its password already hashed (registering, possibly confirmed by mail later).
package struct NewAccount: Sendable {
    package let email: String
    package let name: String
    package let passwordHash: String
    /// The terms and privacy notice's version the person accepted registering (none for accounts an admin adds).
    package var termsVersion: String? = nil
}
