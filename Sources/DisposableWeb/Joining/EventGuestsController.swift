import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// ORG-3's API: the organizer lists an event's guests and removes one (`?photos=true`: with their photos).
package struct EventGuestsController {
    package let guests: EventGuests

    package init(guests: EventGuests) {
        self.guests = guests
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/guests", use: list)
        router.delete("/api/v1/events/:id/guests/:guest", use: remove)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await guests.list(eventID: try context.parameters.require("id"), for: context.identity))
    }

    @Sendable package func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        let withPhotos: Bool
        switch request.uri.queryParameters.get("photos") {
        case nil, "false": withPhotos = false
        case "true": withPhotos = true
        default: throw Problem.invalidField("photos", "photos must be true (delete their photos too) or false (keep them).")
        }
        try await guests.remove(
            guestID: try context.parameters.require("guest"), eventID: try context.parameters.require("id"), withPhotos: withPhotos,
            for: context.identity)
        return Response(status: .noContent)
    }
}
