import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// The general gallery, "My shots" (GAL-1..3) and the organizer's stats (ORG-2).
package struct GalleryController {
    package let gallery: GalleryService

    package init(gallery: GalleryService) {
        self.gallery = gallery
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/photos", use: list)
        router.get("/api/v1/events/:id/stats", use: stats)
        router.get("/api/v1/me/photos", use: myPhotos)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let eventID = try context.parameters.require("id")
        let query = request.uri.queryParameters
        let limit = try Self.limit(query.get("limit"))
        guard let order = GalleryService.Order(rawValue: query.get("order") ?? "uploaded") else {
            throw Problem.invalidField("order", "order must be “uploaded” or “taken”.")
        }
        let page = try await gallery.page(
            .init(eventID: eventID, mine: query.get("mine") == "true", order: order, cursor: query.get("cursor"), limit: limit),
            for: identity)
        return jsonResponse(page)
    }

    /// JN-6: every photo I shot, in every event I am still in, newest first.
    @Sendable package func myPhotos(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        return try jsonResponse(
            try await gallery.myPhotos(for: context.identity, cursor: query.get("cursor"), limit: try Self.limit(query.get("limit"))))
    }

    package static func limit(_ raw: String?) throws -> Int {
        guard let raw else { return 50 }
        guard let limit = Int(raw), (1...100).contains(limit) else {
            throw Problem.invalidField("limit", "limit must be a whole number from 1 to 100.")
        }
        return limit
    }

    /// The organizer's numbers: photos, guests, photos per guest, storage used, uploads over time.
    @Sendable package func stats(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await gallery.stats(eventID: try context.parameters.require("id"), for: context.identity))
    }
}
