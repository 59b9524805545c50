import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `GET /api/v1/push`, `POST /api/v1/push/subscriptions`, `DELETE /api/v1/push/subscriptions/{id}`,
/// `PUT /api/v1/push/kinds` — the phones subscribed to an account's or a guest's notices; each sees only its own.
/// Choosing kinds is an account's (a guest gets every kind its bell shows).
package struct PushController {
    package let push: PushService

    package init(push: PushService) {
        self.push = push
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/push", use: settings)
        router.post("/api/v1/push/subscriptions", use: subscribe)
        router.delete("/api/v1/push/subscriptions/:id", use: remove)
        router.put("/api/v1/push/kinds", use: kinds)
    }

    private func signedIn(_ context: AppRequestContext) throws -> PushSubscriptions.Owner {
        guard let identity = context.identity else { throw Problem.unauthorized }
        return PushSubscriptions.Owner(identity)
    }

    @Sendable package func settings(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await push.settings(for: try signedIn(context)))
    }

    @Sendable package func subscribe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let owner = try signedIn(context)
        let input = try await request.decodeJSON(PushSubscriptionInput.self)
        let language = WebLanguage.of(cookie: request.cookies[WebLanguage.cookieName]?.value, acceptLanguage: request.headers[.acceptLanguage])
        let device = try await push.subscribe(
            input, for: owner, language: language, device: DeviceName.from(userAgent: request.headers[.userAgent]))
        return try jsonResponse(device, status: .created)
    }

    @Sendable package func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await push.remove(try context.parameters.require("id"), for: try signedIn(context))
        return Response(status: .noContent)
    }

    @Sendable package func kinds(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try jsonResponse(try await push.setKinds(try await request.decodeJSON(PushKindsInput.self).kinds, for: user))
    }
}

extension PushSubscriptionInput: JSONBody {
    package static let fields: Set<String> = ["endpoint", "expirationTime", "keys"]
}

extension PushKindsInput: JSONBody {
    package static let fields: Set<String> = ["kinds"]
}
