import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The venue wall's API (GAL-5): the organizer makes, replaces or turns off the link; the wall reads its
/// photos with the link's key (its feed is in `ChangesController`).
package struct WallController {
    package let walls: VenueWall

    package init(walls: VenueWall) {
        self.walls = walls
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events/:id/wall", use: create)
        router.delete("/api/v1/events/:id/wall", use: turnOff)
        router.get("/api/v1/walls/:key/photos", use: photos)
    }

    /// A new wall link; the previous one, if any, stops working.
    @Sendable package func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let url = try await walls.link(eventID: try context.parameters.require("id"), for: context.identity, renew: true)
        return try jsonResponse(WallLink(url: url), status: .created)
    }

    @Sendable package func turnOff(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await walls.turnOff(eventID: try context.parameters.require("id"), for: context.identity)
        return Response(status: .noContent)
    }

    @Sendable package func photos(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = try await walls.photos(
            key: try context.parameters.require("key"), limit: try GalleryController.limit(query.get("limit")), cursor: query.get("cursor"))
        return jsonResponse(page)
    }
}
