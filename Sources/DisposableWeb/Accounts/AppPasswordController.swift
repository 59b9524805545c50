import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/api/v1/me/app-passwords`: an account's device passwords for WebDAV — made (shown once), listed, revoked.
/// Signed-in accounts only, each their own.
package struct AppPasswordController {
    package let appPasswords: AppPasswordService

    package init(appPasswords: AppPasswordService) {
        self.appPasswords = appPasswords
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/me/app-passwords", use: list)
        router.post("/api/v1/me/app-passwords", use: create)
        router.delete("/api/v1/me/app-passwords/:id", use: revoke)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await appPasswords.list(for: try context.requireUser()))
    }

    @Sendable package func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try jsonResponse(
            try await appPasswords.create(try await request.decodeJSON(AppPasswordInput.self), for: user, client: context.clientAddress),
            status: .created)
    }

    @Sendable package func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await appPasswords.revoke(try context.parameters.require("id"), for: try context.requireUser())
        return Response(status: .noContent)
    }
}

extension AppPasswordInput: JSONBody {
    package static let fields: Set<String> = ["name", "currentPassword"]
}
