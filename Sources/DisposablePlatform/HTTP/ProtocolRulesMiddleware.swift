import DisposableCore
import Hummingbird

/// What every request must be before any route sees it: with a `Host` (RFC 9112 §3.2 requires one; HTTP/1.0
/// clients all send it nowadays), and with a method this server knows (TRACE and the rest answer 405); WebDAV's
/// own methods only under `/dav/`.
package struct ProtocolRulesMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package static var methods: Set<HTTPRequest.Method> { [.get, .head, .post, .put, .patch, .delete, .options] }
    package static var webDAVMethods: Set<HTTPRequest.Method> {
        Set(["PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE"].compactMap { HTTPRequest.Method($0) })
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let webDAV = request.uri.path == "/dav" || request.uri.path.hasPrefix("/dav/")
        guard Self.methods.contains(request.method) || (webDAV && Self.webDAVMethods.contains(request.method)) else {
            var problem = Problem(
                .methodNotAllowed, "method-not-allowed", title: "Method not allowed", detail: "This server does not accept that method.")
            problem.headers[.allow] = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
            throw problem
        }
        guard let host = request.head.authority, !host.isEmpty else {
            throw Problem.badRequest("The request has no Host header.")
        }
        return try await next(request, context)
    }
}
