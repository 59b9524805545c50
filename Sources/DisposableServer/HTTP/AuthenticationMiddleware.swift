import Hummingbird

/// The web app's session cookie; the same token as the bearer one.
let sessionCookieName = "disposable_session"

/// Finds who is asking from `Authorization: Bearer …` or the session cookie.
/// A bearer token that is unknown is an error (the client must sign in again); a stale cookie is just ignored.
struct AuthenticationMiddleware: RouterMiddleware {
    let tokens: AccessTokenRepository
    /// Answers for reads, forgotten at every write.
    let recent: RecentReads

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        let isRead = request.method == .get || request.method == .head
        if !isRead { recent.forgetAll() }
        // After the write too: a read that looked something up while the write ran must not keep it.
        defer { if !isRead { recent.forgetAll() } }
        var context = context
        if let authorization = request.headers[.authorization] {
            guard authorization.lowercased().hasPrefix("bearer "), case let token = String(authorization.dropFirst(7)),
                let identity = try await identity(for: token.trimmingCharacters(in: .whitespaces), isRead: isRead)
            else {
                throw Problem(.unauthorized, "invalid-token", title: "Not signed in",
                              detail: "Your session has ended or the token is not valid. Please sign in again.")
            }
            context.identity = identity
        } else if let cookie = request.cookies[sessionCookieName]?.value, !cookie.isEmpty {
            context.identity = try await identity(for: cookie, isRead: isRead)
        }
        return try await next(request, context)
    }

    private func identity(for token: String, isRead: Bool) async throws -> Identity? {
        guard isRead else { return try await tokens.identity(for: token) }
        return try await recent.identities.answer(for: token) { try await tokens.identity(for: token) }
    }
}
