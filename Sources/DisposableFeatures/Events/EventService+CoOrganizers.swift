import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// ORG-5: an event organized by several people. Its owner invites with a one-time link; whoever opens it signed in
/// organizes the event beside them (edits, moderates, downloads, sees the numbers and the wall, gets the notices),
/// until the owner removes them or they leave. Deleting the event, inviting and removing stay the owner's; the
/// event's storage and quota stay theirs too.
extension EventService {
    package static let coOrganizerInvitationLifetime: TimeInterval = 7 * 86_400
    /// A wedding has two organizers, a club a handful: ten is more than either needs.
    package static let maxCoOrganizers = 10
    package static let maxOpenInvitations = 20

    package static let invitationUnknown = Problem(
        .notFound, "invitation-unknown", title: "Invitation not valid",
        detail: "This invitation link was already used, has expired, or never existed. Ask the organizer for a new one.")

    /// A new invitation link; the token is shown once and kept as its hash.
    package func inviteCoOrganizer(eventID: String, by identity: Identity?) async throws -> CoOrganizerInvitation {
        let event = try await ownedEvent(eventID, for: identity)
        let token = SecretToken.generate()
        let now = clock.now
        let expires = now + Self.coOrganizerInvitationLifetime
        guard
            try await coOrganizers.storeInvitation(
                tokenHash: SecretToken.hash(token), eventID: event.id, now: now, expires: expires, limit: Self.maxOpenInvitations)
        else {
            throw Problem.conflict(
                "too-many-invitations",
                "This event already has \(Self.maxOpenInvitations) open invitations. Wait until one is used or expires.")
        }
        return CoOrganizerInvitation(token: token, url: "\(links.publicBaseURL)/co-organize/\(token)", expiresAt: expires)
    }

    /// The event an invitation is for, without using it: nil when it is unknown, used, expired, or its event is gone.
    package func coOrganizerInvitation(token: String) async throws -> Event? {
        guard let eventID = try await coOrganizers.invitationEventID(tokenHash: SecretToken.hash(token), now: clock.now),
            let event = try await find(id: eventID), isKept(event)
        else { return nil }
        return event
    }

    /// The name of the event's owner, as an invitation's page shows it.
    package func ownerName(of event: Event) async throws -> String? {
        try await coOrganizers.owner(eventID: event.id)?.name
    }

    /// Uses the invitation up: the signed-in account organizes its event from now on.
    package func acceptCoOrganizerInvitation(token: String, by identity: Identity?) async throws -> Event {
        guard let identity else { throw Problem.unauthorized }
        guard case .user(let user, _) = identity else {
            throw Problem(
                .forbidden, "account-required", title: "An account is needed",
                detail: "Sign in or create an account to organize this event; a guest's session cannot.")
        }
        guard let event = try await coOrganizerInvitation(token: token) else { throw Self.invitationUnknown }
        if event.organizerID == user.id {
            throw Problem.conflict("already-owner", "You own this event already: send the link to the person who will organize it with you.")
        }
        do {
            guard
                try await coOrganizers.accept(
                    tokenHash: SecretToken.hash(token), userID: user.id, now: clock.now, limit: Self.maxCoOrganizers) != nil
            else { throw Self.invitationUnknown }
        } catch is CoOrganizerRepository.LimitReached {
            throw Problem.conflict("too-many-co-organizers", "This event already has \(Self.maxCoOrganizers) co-organizers.")
        }
        return event
    }

    /// Who organizes the event: its owner, then its co-organizers. Its organizers may ask.
    package func organizers(eventID: String, for identity: Identity?) async throws -> CoOrganizerList {
        let event = try await organizedEvent(eventID, for: identity)
        guard let owner = try await coOrganizers.owner(eventID: event.id) else { throw Self.notFound }
        return CoOrganizerList(
            owner: EventOrganizer(userId: owner.userID, name: owner.name),
            items: try await coOrganizers.list(eventID: event.id).map { EventOrganizer(userId: $0.userID, name: $0.name, addedAt: $0.addedAt) })
    }

    /// The owner removes a co-organizer, or a co-organizer leaves. Their live views of the event end at their next
    /// check; what they shot stays in the event.
    package func removeCoOrganizer(eventID: String, userID: String, by identity: Identity?) async throws {
        let event = try await organizedEvent(eventID, for: identity)
        let leaving = if case .user(let user, _) = identity { user.id == userID } else { false }
        guard isOwner(of: event, identity) || leaving else { throw Self.ownerOnly }
        guard try await coOrganizers.remove(eventID: event.id, userID: userID) else {
            throw Problem.notFound("This person is not a co-organizer of the event.")
        }
    }
}
