import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Friends: `GET`/`POST /api/v1/friends`, `POST /api/v1/friends/{id}/accept`, `DELETE /api/v1/friends/{id}` (decline,
/// take back or remove). Accounts only.
package struct FriendController {
    package let friends: FriendService

    package init(friends: FriendService) {
        self.friends = friends
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/friends", use: list)
        router.post("/api/v1/friends", use: request)
        router.post("/api/v1/friends/:id/accept", use: accept)
        router.delete("/api/v1/friends/:id", use: remove)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await friends.list(for: try context.requireUser()))
    }

    @Sendable package func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(FriendRequest.self)
        let result = try await friends.request(input, from: user)
        let status: HTTPResponse.Status = result.status == "accepted" ? .ok : result.friend == nil ? .accepted : .created
        return try jsonResponse(result, status: status)
    }

    @Sendable package func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await friends.accept(try context.parameters.require("id"), for: try context.requireUser()))
    }

    @Sendable package func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await friends.remove(try context.parameters.require("id"), for: try context.requireUser())
        return Response(status: .noContent)
    }
}

extension FriendRequest: JSONBody {
    package static let fields: Set<String> = ["username", "email"]
}
