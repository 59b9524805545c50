import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `GET`/`DELETE /api/v1/me/openid` — whether the signed-in account is linked to the instance's OpenID
/// Connect provider, and unlinking it. Linking needs the provider's pages, so it is done in a browser
/// (`/account`). Accounts only; 404 when the instance has no provider.
package struct OpenIDController {
    package let openID: OpenIDService?

    package init(openID: OpenIDService?) {
        self.openID = openID
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/me/openid", use: status)
        router.delete("/api/v1/me/openid", use: unlink)
    }

    package static let noProvider = Problem.notFound("This server has no OpenID Connect provider: accounts sign in with a password.")

    @Sendable package func status(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let openID else { throw Self.noProvider }
        return try jsonResponse(try await openID.status(of: user))
    }

    @Sendable package func unlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let openID else { throw Self.noProvider }
        try await openID.unlink(user)
        return Response(status: .noContent)
    }
}
