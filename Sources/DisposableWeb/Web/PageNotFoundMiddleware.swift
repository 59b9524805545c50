import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Hummingbird

/// A browser that opens an address nothing answers gets a page in the app's look and its language, not the
/// API's JSON. API paths and clients that do not ask for HTML keep problem+json.
package struct PageNotFoundMiddleware: RouterMiddleware {
    /// Who the session cookie names: an address no route answers never met the session's middleware, and the
    /// page's menu is the signed-in one when someone is.
    package let identity: @Sendable (_ sessionToken: String) async throws -> Identity?

    package init(identity: @escaping @Sendable (_ sessionToken: String) async throws -> Identity?) {
        self.identity = identity
    }

    package func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && Self.wantsPage(request) {
            var context = context
            if context.identity == nil, let token = request.cookies[SessionCookie.name]?.value, !token.isEmpty {
                context.identity = try? await identity(token)
            }
            return WebRequest(request, context: context).errorPage(
                status: .notFound, titleKey: "error_missing_title", messageKey: "error_missing_message")
        }
    }

    package static func wantsPage(_ request: Request) -> Bool {
        (request.method == .get || request.method == .head) && !request.uri.path.hasPrefix("/api/")
            && request.headers[.accept]?.contains("text/html") == true
    }
}
