import Hummingbird

/// The web app's session cookie; the same token as the bearer one.
let sessionCookieName = "disposable_session"

/// Finds who is asking from `Authorization: Bearer …` or the session cookie.
/// A bearer token that is unknown is an error (the client must sign in again); a stale cookie is just ignored.
struct AuthenticationMiddleware: RouterMiddleware {
    let tokens: AccessTokenRepository

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        if let authorization = request.headers[.authorization] {
            guard authorization.lowercased().hasPrefix("bearer "), case let token = String(authorization.dropFirst(7)),
                let identity = try await tokens.identity(for: token.trimmingCharacters(in: .whitespaces))
            else {
                throw Problem(.unauthorized, "invalid-token", title: "Not signed in",
                              detail: "Your session has ended or the token is not valid. Please sign in again.")
            }
            context.identity = identity
        } else if let cookie = request.cookies[sessionCookieName]?.value, !cookie.isEmpty {
            context.identity = try await tokens.identity(for: cookie)
        }
        return try await next(request, context)
    }
}
