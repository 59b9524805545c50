import DisposableAPI
import Foundation
import Hummingbird

/// Issue 42: `GET /api/v1/push`, `POST /api/v1/push/subscriptions`, `DELETE /api/v1/push/subscriptions/{id}`,
/// `PUT /api/v1/push/kinds` — an account's phones subscribed to its notices. Accounts only; each sees its own.
struct PushController {
    let push: PushService

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/push", use: settings)
        router.post("/api/v1/push/subscriptions", use: subscribe)
        router.delete("/api/v1/push/subscriptions/:id", use: remove)
        router.put("/api/v1/push/kinds", use: kinds)
    }

    @Sendable func settings(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await push.settings(for: try context.requireUser()))
    }

    @Sendable func subscribe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(PushSubscriptionInput.self)
        let language = WebLanguage.of(cookie: request.cookies[WebLanguage.cookieName]?.value, acceptLanguage: request.headers[.acceptLanguage])
        let device = try await push.subscribe(input, for: user, language: language, device: DeviceName.from(userAgent: request.headers[.userAgent]))
        return try jsonResponse(device, status: .created)
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await push.remove(try context.parameters.require("id"), for: try context.requireUser())
        return Response(status: .noContent)
    }

    @Sendable func kinds(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try jsonResponse(try await push.setKinds(try await request.decodeJSON(PushKindsInput.self).kinds, for: user))
    }
}

extension PushSubscriptionInput: JSONBody {
    static let fields: Set<String> = ["endpoint", "expirationTime", "keys"]
}

extension PushKindsInput: JSONBody {
    static let fields: Set<String> = ["kinds"]
}
