import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// CAP-3: `GET`/`POST /api/v1/moments`, `DELETE /api/v1/moments/{id}`, `GET /api/v1/moments/recap`.
package struct MomentController {
    package let moments: MomentService

    package init(moments: MomentService) {
        self.moments = moments
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/moments", use: list)
        router.post("/api/v1/moments", use: add)
        router.get("/api/v1/moments/recap", use: recap)
        router.delete("/api/v1/moments/:id", use: delete)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let year = try request.uri.queryParameters.get("year").map(Self.year)
        return try jsonResponse(try await moments.page(year: year, for: user))
    }

    @Sendable package func add(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(MomentInput.self)
        return try jsonResponse(try await moments.add(input.text, for: user), status: .created)
    }

    @Sendable package func recap(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let raw = request.uri.queryParameters.get("year") else { throw Problem.invalidField("year", "Say which year: ?year=2026.") }
        return try jsonResponse(try await moments.recap(year: try Self.year(raw), for: user))
    }

    @Sendable package func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await moments.delete(try context.parameters.require("id"), for: try context.requireUser())
        return Response(status: .noContent)
    }

    package static func year(_ raw: String) throws -> Int {
        guard raw.count == 4, let year = Int(raw), (1970...9999).contains(year) else {
            throw Problem.invalidField("year", "year must be a year from 1970 to 9999.")
        }
        return year
    }
}

extension MomentInput: JSONBody {
    package static let fields: Set<String> = ["text"]
}
