import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// ORG-5 in the API: invitations, the list of organizers, removing one, and accepting an invitation.
package struct CoOrganizersController {
    package let events: EventService

    package init(events: EventService) {
        self.events = events
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events/:id/co-organizers/invitations", use: invite)
        router.get("/api/v1/events/:id/co-organizers", use: list)
        router.delete("/api/v1/events/:id/co-organizers/:coOrganizer", use: remove)
        router.post("/api/v1/co-organizer-invitations/:invitation", use: accept)
    }

    @Sendable package func invite(_ request: Request, context: AppRequestContext) async throws -> Response {
        let invitation = try await events.inviteCoOrganizer(eventID: try context.parameters.require("id"), by: context.identity)
        return try jsonResponse(invitation, status: .created)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try jsonResponse(try await events.organizers(eventID: try context.parameters.require("id"), for: context.identity))
    }

    @Sendable package func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await events.removeCoOrganizer(
            eventID: try context.parameters.require("id"), userID: try context.parameters.require("coOrganizer"), by: context.identity)
        return Response(status: .noContent)
    }

    @Sendable package func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await events.acceptCoOrganizerInvitation(token: try context.parameters.require("invitation"), by: context.identity)
        return try jsonResponse(events.json(event, role: .organizer, for: context.identity))
    }
}
