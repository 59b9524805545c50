import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `GET`/`PUT`/`DELETE /api/v1/me/scrobbler` — the Maloja server the monthly capsule takes its song from.
/// Accounts only; each sees and changes only their own.
package struct ScrobblerController {
    package let scrobblers: ScrobblerService
    /// Linking goes through the capsules: those that came out without a song get it.
    package let capsules: CapsuleService

    package init(scrobblers: ScrobblerService, capsules: CapsuleService) {
        self.scrobblers = scrobblers
        self.capsules = capsules
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/me/scrobbler", use: linked)
        router.put("/api/v1/me/scrobbler", use: link)
        router.delete("/api/v1/me/scrobbler", use: unlink)
    }

    @Sendable package func linked(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await scrobblers.linked(for: try context.requireUser()))
    }

    @Sendable package func link(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try jsonResponse(try await capsules.linkScrobbler(try await request.decodeJSON(ScrobblerInput.self), for: user))
    }

    @Sendable package func unlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await scrobblers.unlink(for: try context.requireUser())
        return Response(status: .noContent)
    }
}

extension ScrobblerInput: JSONBody {
    package static let fields: Set<String> = ["kind", "url", "apiKey"]
}
