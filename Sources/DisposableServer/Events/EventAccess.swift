import Foundation

/// How a caller relates to an event.
enum EventRole: String, Encodable, Sendable {
    case organizer, guest
}

/// Who may see an event: its organizer and its guests. Everyone else gets 404, so that
/// ids of other people's events cannot even be confirmed; anonymous callers get 401.
struct EventAccess: Sendable {
    let services: AppServices

    /// The event and the caller's role in it, or the problem to answer with. A read (`forRead`) may get the
    /// event row as it was up to a second ago, unless something changed since (see `RecentReads`).
    func event(_ id: String, for identity: Identity?, forRead: Bool = false) async throws -> (Event, EventRole) {
        guard let identity else { throw Problem.unauthorized }
        let found = forRead
            ? try await services.recentReads.events.answer(for: id) { try await services.events.find(id: id) }
            : try await services.events.find(id: id)
        guard let event = found,
            services.clock.now < event.deletesAt(retention: services.configuration.retention)
        else { throw Self.notFound }
        switch identity {
        case .user(let user, _):
            if event.organizerID == user.id { return (event, .organizer) }
            if try await services.guests.activeMembership(userID: user.id, eventID: id) != nil { return (event, .guest) }
        case .guest(let guest, _):
            if guest.eventID == event.id { return (event, .guest) }
        }
        throw Self.notFound
    }

    /// The event if the caller organizes it; 403 for its guests.
    func organizedEvent(_ id: String, for identity: Identity?) async throws -> Event {
        let (event, role) = try await event(id, for: identity)
        guard role == .organizer else {
            throw Problem(.forbidden, "organizer-only", title: "Organizer only",
                          detail: "Only the organizer of this event can do this.")
        }
        return event
    }

    static let notFound = Problem.notFound("There is no event with this id, or you have not joined it.")
}
