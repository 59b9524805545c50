import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Hummingbird

/// Finds who is asking from `Authorization: Bearer …` or the session cookie.
/// A bearer token that is unknown is an error (the client must sign in again); a stale cookie is just ignored.
package struct AuthenticationMiddleware: RouterMiddleware {
    /// Who holds a token; `isRead` for GET and HEAD, which may be answered from memory (`RememberedReads`).
    package let identity: @Sendable (_ token: String, _ isRead: Bool) async throws -> Identity?

    package init(identity: @escaping @Sendable (_ token: String, _ isRead: Bool) async throws -> Identity?) {
        self.identity = identity
    }

    package func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws
        -> Response
    {
        let isRead = request.method == .get || request.method == .head
        var context = context
        if let authorization = request.headers[.authorization] {
            guard let token = Self.bearerToken(authorization), let identity = try await identity(token, isRead) else {
                throw Problem(
                    .unauthorized, "invalid-token", title: "Not signed in",
                    detail: "Your session has ended or the token is not valid. Please sign in again.")
            }
            context.identity = identity
        } else if let cookie = request.cookies[SessionCookie.name]?.value, !cookie.isEmpty {
            context.identity = try await identity(cookie, isRead)
        }
        return try await next(request, context)
    }

    /// The token the request sends, as `identity` is asked for it: the bearer token, or else the session cookie.
    package static func sentToken(_ request: Request) -> String? {
        if let authorization = request.headers[.authorization] { return bearerToken(authorization) }
        return request.cookies[SessionCookie.name]?.value
    }

    /// The token of `Bearer <token>` (the scheme in any case, spaces around the token ignored); nil for any
    /// other scheme. Byte by byte: Foundation's `lowercased` and `trimmingCharacters` were 3 % of a gallery read.
    package static func bearerToken(_ authorization: String) -> String? {
        let scheme = "bearer ".utf8
        let bytes = authorization.utf8
        guard bytes.count > scheme.count, bytes.hasPrefixIgnoringCase(scheme) else { return nil }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var token = Substring(authorization).utf8.dropFirst(scheme.count)
        while let first = token.first, isSpace(first) { token = token.dropFirst() }
        while let last = token.last, isSpace(last) { token = token.dropLast() }
        return String(Substring(token))
    }
}
