import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `POST /api/v1/client-errors` (anyone, rate-limited) and `GET /api/v1/admin/client-errors` (the admin).
package struct ClientErrorController {
    package let clientErrors: ClientErrorService

    package init(clientErrors: ClientErrorService) {
        self.clientErrors = clientErrors
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/client-errors", use: report)
        router.get("/api/v1/admin/client-errors", use: recent)
    }

    @Sendable package func report(_ request: Request, context: AppRequestContext) async throws -> Response {
        let report = try await request.decodeJSON(ClientErrorReport.self)
        try await clientErrors.report(report, userAgent: request.headers[.userAgent], client: context.clientAddress)
        return Response(status: .noContent)
    }

    @Sendable package func recent(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(try await clientErrors.recent())
    }
}

extension ClientErrorReport: JSONBody {
    package static let fields: Set<String> = ["message", "page", "stack"]
}
