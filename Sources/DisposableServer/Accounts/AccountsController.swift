import Foundation
import Hummingbird

/// Register, log in, log out, who am I (ADM-3).
struct AccountsController {
    let services: AppServices
    let loginLimiter: RateLimiter
    let registrationLimiter: RateLimiter

    init(services: AppServices) {
        self.services = services
        loginLimiter = RateLimiter(services.configuration.limits.login)
        registrationLimiter = RateLimiter(services.configuration.limits.registration)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/users", use: register)
        router.post("/api/v1/sessions", use: login)
        router.delete("/api/v1/sessions/current", use: logout)
        router.get("/api/v1/me", use: me)
    }

    struct RegisterBody: JSONBody {
        static let fields: Set<String> = ["email", "password", "name"]
        let email: String?
        let password: String?
        let name: String?
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await services.settings.registrationEnabled() else { throw Self.registrationDisabled }
        try await registrationLimiter.take(context.clientAddress)
        let body = try await request.decodeJSON(RegisterBody.self)
        return try jsonResponse(UserJSON(try await createAccount(email: body.email, password: body.password, name: body.name)), status: .created)
    }

    static let registrationDisabled = Problem(.forbidden, "registration-disabled", title: "Registration disabled",
                                              detail: "Account registration is disabled")

    /// Validates and creates an account; shared with the web form (which checks the limits itself).
    func createAccount(email rawEmail: String?, password rawPassword: String?, name rawName: String?) async throws -> User {
        let email = try Credentials.email(rawEmail)
        let password = try Credentials.newPassword(rawPassword)
        let name = try DisplayName.validate(rawName.flatMap { $0.isEmpty ? nil : $0 } ?? String(email.prefix { $0 != "@" }), max: 80)
        let hash = try await services.passwords.hash(password)
        let now = services.clock.now
        let created = try await services.database.transaction { db in
            try await services.users.create(email: email, name: name, passwordHash: hash, isAdmin: false, now: now, in: db)
        }
        guard let user = created else {
            throw Problem.conflict("email-taken", "An account with the email address “\(email)” already exists. Try logging in.")
        }
        return user
    }

    struct LoginBody: JSONBody {
        static let fields: Set<String> = ["email", "password"]
        let email: String?
        let password: String?
    }

    struct SessionJSON: Encodable {
        let token: String
        let user: UserJSON
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(LoginBody.self)
        let (token, user) = try await signIn(email: body.email, password: body.password, client: context.clientAddress)
        var response = try jsonResponse(SessionJSON(token: token, user: UserJSON(user)), status: .ok)
        response.setCookie(sessionCookie(token, secure: services.configuration.usesHTTPS))
        return response
    }

    /// Checks the credentials (rate-limited per address) and issues a session token; shared with the web form.
    func signIn(email rawEmail: String?, password rawPassword: String?, client: String) async throws -> (String, User) {
        try await loginLimiter.check(client)
        let email = try Credentials.email(rawEmail)
        let password = try Credentials.loginPassword(rawPassword)
        let account = try await services.users.findWithPassword(email: email)
        // Verify against a decoy when the account is unknown, so timing does not reveal which emails exist.
        let matches = try await services.passwords.verify(password, hash: account?.passwordHash ?? PasswordHasher.decoyHash)
        guard let (user, _) = account, matches else {
            await loginLimiter.consume(client)
            throw Problem(.unauthorized, "wrong-credentials", title: "Wrong email or password",
                          detail: "The email address or the password is wrong. Check them and try again.")
        }
        let token = try await services.database.sql { db in
            try await services.tokens.issue(userID: user.id, now: services.clock.now, in: db)
        }
        return (token, user)
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        try await services.tokens.revoke(hash: identity.tokenHash)
        var response = Response(status: .noContent)
        response.setCookie(sessionCookie("", secure: services.configuration.usesHTTPS))
        return response
    }

    struct MeJSON: Encodable {
        let kind: String
        let user: UserJSON?
        let guest: GuestJSON?
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        switch try context.requireIdentity() {
        case .user(let user, _):
            return try jsonResponse(MeJSON(kind: "user", user: UserJSON(user), guest: nil))
        case .guest(let guest, _):
            let event = try await services.events.find(id: guest.eventID)
            return try jsonResponse(MeJSON(kind: "guest", user: nil, guest: GuestJSON(guest, shotsPerGuest: event?.shotsPerGuest ?? 0)))
        }
    }
}
