import DisposableCore
import Hummingbird

/// SEC-3: a write carrying the session cookie must come from our own pages. Browsers send `Origin` (and
/// `Sec-Fetch-Site`) with every POST/PATCH/DELETE; a different site is refused. Native clients send neither
/// and use bearer tokens, which a foreign page cannot attach. The SameSite=Lax cookie is the second wall.
package struct CrossSiteRequestGuard<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if ![.get, .head, .options].contains(request.method), Self.isCrossSite(request) {
            throw Problem(
                .forbidden, "cross-site-request", title: "Request from another site",
                detail: "This request came from another website, so it was refused. Open Disposable directly and try again.")
        }
        return try await next(request, context)
    }

    package static func isCrossSite(_ request: Request) -> Bool {
        if let site = request.headers[.init("Sec-Fetch-Site")!], site == "cross-site" || site == "same-site" { return true }
        guard let origin = request.headers[.origin] else { return false }
        guard let host = request.head.authority else { return true }
        return origin != "http://\(host)" && origin != "https://\(host)"
    }
}
