import DisposableCore
import HTTPTypes
import Hummingbird

/// Headers every response carries (SEC-3): no MIME sniffing, no framing, and a strict CSP for pages.
package struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Pages may show images from these origins too (the bucket, when thumbnails are fetched from it).
    package var imageOrigins: [String] = []
    /// Forms may lead to these origins too: the OpenID Connect provider's, where the sign-in button's form is
    /// redirected (browsers hold a form's redirects to `form-action`).
    package var formOrigins: [String] = []

    package init(imageOrigins: [String] = [], formOrigins: [String] = []) {
        self.imageOrigins = imageOrigins
        self.formOrigins = formOrigins
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        Self.addCommonHeaders(to: &response.headers)
        if response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.headers[.contentSecurityPolicy] =
                "default-src 'self'; img-src 'self' data: blob:\(imageOrigins.map { " " + $0 }.joined()); style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'\(formOrigins.map { " " + $0 }.joined())"
            response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        }
        return response
    }

    /// The headers every response carries, whatever its type (also written by `MediaShortcut`).
    package static var commonHeaders: [HTTPField] {
        [HTTPField(name: .xContentTypeOptions, value: "nosniff"), HTTPField(name: HTTPField.Name("Referrer-Policy")!, value: "same-origin")]
    }

    package static func addCommonHeaders(to headers: inout HTTPFields) {
        for field in commonHeaders { headers[field.name] = field.value }
    }
}
