import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Register, log in, log out, who am I (ADM-3).
package struct AccountsController {
    package let accounts: AccountService
    package let signUps: SignUpService
    package let events: EventService
    package let secureCookies: Bool

    package init(accounts: AccountService, signUps: SignUpService, events: EventService, secureCookies: Bool) {
        self.accounts = accounts
        self.signUps = signUps
        self.events = events
        self.secureCookies = secureCookies
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/users", use: register)
        router.post("/api/v1/registrations/:token", use: confirm)
        router.post("/api/v1/sessions", use: login)
        router.delete("/api/v1/sessions/current", use: logout)
        router.get("/api/v1/me", use: me)
        router.get("/api/v1/me/sessions", use: sessions)
        router.delete("/api/v1/me/sessions", use: endOtherSessions)
        router.delete("/api/v1/me/sessions/:session", use: endSession)
    }

    @Sendable package func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(RegisterRequest.self)
        switch try await signUps.register(
            email: body.email, password: body.password, name: body.name, termsVersion: body.acceptedTerms, client: context.clientAddress,
            language: WebLanguage.of(cookie: nil, acceptLanguage: request.headers[.acceptLanguage]).rawValue)
        {
        case .created(let user):
            try await accounts.keepGuest(context.identity, for: user)
            return try jsonResponse(UserJSON(user), status: .created)
        case .confirmationSent: return try jsonResponse(SignUpPending(), status: .accepted)
        }
    }

    /// The mailed link's token, for a client that shows its own confirmation screen.
    @Sendable package func confirm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await signUps.confirm(token: try context.parameters.require("token"))
        try await accounts.keepGuest(context.identity, for: user)
        return try jsonResponse(UserJSON(user), status: .created)
    }

    @Sendable package func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(LoginRequest.self)
        let (token, user) = try await accounts.signIn(
            email: body.email, password: body.password, client: context.clientAddress,
            device: DeviceName.from(userAgent: request.headers[.userAgent]), continuing: context.identity)
        var response = try jsonResponse(Session(token: token, user: UserJSON(user)), status: .ok)
        response.setCookie(SessionCookie.make(token, secure: secureCookies))
        return response
    }

    @Sendable package func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await accounts.signOut(try context.requireIdentity())
        var response = Response(status: .noContent)
        response.setCookie(SessionCookie.make("", secure: secureCookies))
        return response
    }

    @Sendable package func sessions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try jsonResponse(SessionList(items: try await accounts.sessions(of: user, current: try context.requireIdentity().tokenHash)))
    }

    /// Signs out everywhere but here.
    @Sendable package func endOtherSessions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try await accounts.endOtherSessions(of: user, keeping: try context.requireIdentity().tokenHash)
        return Response(status: .noContent)
    }

    @Sendable package func endSession(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try await accounts.endSession(try context.parameters.require("session"), of: user)
        return Response(status: .noContent)
    }

    @Sendable package func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        switch try context.requireIdentity() {
        case .user(let user, _):
            return try jsonResponse(Me(kind: "user", user: UserJSON(user), guest: nil))
        case .guest(let guest, _):
            let event = try await events.find(id: guest.eventID)
            return try jsonResponse(Me(kind: "guest", user: nil, guest: GuestJSON(guest, shotsPerGuest: event?.shotsPerGuest ?? 0)))
        }
    }
}

extension RegisterRequest: JSONBody {
    package static let fields: Set<String> = ["email", "password", "name", "acceptedTerms"]
}

extension LoginRequest: JSONBody {
    package static let fields: Set<String> = ["email", "password"]
}
