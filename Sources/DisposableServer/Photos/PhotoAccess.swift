import Foundation

/// Who may see or change a photo: the event's organizer any photo; a guest their own photos,
/// and others' once the gallery is revealed. Everyone else gets 404.
struct PhotoAccess: Sendable {
    let services: AppServices
    let events: EventAccess

    struct Grant: Sendable {
        let photo: Photo
        let event: Event
        let role: EventRole
        /// The caller's uploader id in this event (guest id, or user id for the organizer).
        let viewerID: String
        var isOwner: Bool { photo.uploaderID == viewerID }
    }

    func photo(_ id: String, for identity: Identity?) async throws -> Grant {
        guard let identity else { throw Problem.unauthorized }
        guard let photo = try await services.photos.find(id: id) else { throw Self.notFound }
        let (event, role): (Event, EventRole)
        do {
            (event, role) = try await events.event(photo.eventID, for: identity)
        } catch let problem as Problem where problem.status == .notFound {
            throw Self.notFound
        }
        let viewerID = try await events.uploaderID(in: event, role: role, identity: identity)
        let grant = Grant(photo: photo, event: event, role: role, viewerID: viewerID)
        if role == .guest && !grant.isOwner {
            guard photo.status == .ready, photo.approved, Reveal.isRevealed(event, at: services.clock.now) else { throw Self.notFound }
        }
        return grant
    }

    /// Deleting: the shooter, or the event's organizer (GAL-3, ORG-3).
    func deletablePhoto(_ id: String, for identity: Identity?) async throws -> Grant {
        let grant = try await photo(id, for: identity)
        guard grant.isOwner || grant.role == .organizer else {
            throw Problem(.forbidden, "not-your-photo", title: "Not your photo",
                          detail: "Only the person who took this photo, or the event's organizer, can delete it.")
        }
        return grant
    }

    static let notFound = Problem.notFound("There is no photo with this id, or you cannot see it.")
}

extension EventAccess {
    /// The id a caller's photos are recorded under in this event.
    func uploaderID(in event: Event, role: EventRole, identity: Identity) async throws -> String {
        switch identity {
        case .guest(let guest, _): return guest.id
        case .user(let user, _):
            if role == .organizer { return user.id }
            return try await services.guests.activeMembership(userID: user.id, eventID: event.id)?.id ?? user.id
        }
    }
}

/// Whether the general gallery is open (GAL-2), decided at every request from the mode and the clock.
enum Reveal {
    static func isRevealed(_ event: Event, at now: Date) -> Bool {
        now >= event.revealsAt
    }
}
