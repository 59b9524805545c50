import Foundation
import Hummingbird

/// ORG-4: in an event that holds guests' photos for approval, the organizer lets them into the gallery.
/// Refusing one is deleting it (`DELETE /api/v1/photos/{id}`).
struct ApprovalController {
    let services: AppServices
    let access: PhotoAccess

    init(services: AppServices) {
        self.services = services
        access = PhotoAccess(services: services, events: EventAccess(services: services))
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/photos/:id/approve", use: approve)
    }

    @Sendable func approve(_ request: Request, context: AppRequestContext) async throws -> Response {
        let grant = try await access.photo(try context.parameters.require("id"), for: context.identity)
        guard grant.role == .organizer else {
            throw Problem(.forbidden, "organizer-only", title: "Organizer only", detail: "Only the organizer of this event can approve photos.")
        }
        let now = services.clock.now
        let kind = services.database.kind
        let approved = try await services.database.transaction { db -> Photo? in
            let changed = try await db.raw("UPDATE photos SET approved = \(bind: true) WHERE id = \(bind: grant.photo.id) AND NOT approved RETURNING id")
                .first()
            guard changed != nil, let photo = try await PhotoRepository.find(id: grant.photo.id, in: db) else { return nil }
            // Guests learn about it now, as if it had just become ready (a processing photo is announced when it is).
            if photo.status == .ready {
                try await ChangeLog.append(.photoReady, eventID: photo.eventID, photo: photo,
                                           payload: PhotoChange(kind: .photoReady, photo: PhotoJSON(photo, viewerID: nil, links: nil)),
                                           now: now, kindOfDatabase: kind, in: db)
            }
            return photo
        }
        await services.changes.refresh(grant.photo.eventID)
        return try jsonResponse(PhotoJSON(approved ?? grant.photo, viewerID: grant.viewerID, links: services.mediaLinks))
    }
}
