import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// ORG-3: the organizer's view of who joined, and removing someone — their sessions end at once (open pages
/// and live streams within seconds), their place is freed, their comments and likes go, and their photos go too
/// if the organizer asks.
package struct EventGuests: Sendable {
    package let events: EventService
    let guests: GuestRepository
    package let photos: PhotoService

    init(events: EventService, guests: GuestRepository, photos: PhotoService) {
        self.events = events
        self.guests = guests
        self.photos = photos
    }

    /// Enough for any party; the list is for a person to read.
    package static let listLimit = 5000
    package static let unknownGuest = Problem.notFound("This guest is not in the event (they may have left or been removed already).")

    package func list(eventID: String, for identity: Identity?) async throws -> EventGuestList {
        let event = try await events.organizedEvent(eventID, for: identity)
        let roster = try await guests.roster(eventID: event.id, limit: Self.listLimit)
        let pictures = try await photos.pictures.inEvent(event.id)
        return EventGuestList(
            items: roster.map {
                .init(
                    id: $0.guest.id, name: $0.guest.name, joinedAt: $0.guest.joinedAt, shotsUsed: $0.guest.shotsUsed, photos: $0.photos,
                    avatarURL: pictures[$0.guest.id])
            })
    }

    /// Removes a guest of an event the caller organizes; returns how many of their photos were deleted.
    /// Photos first: if the removal is cut short, the guest is still listed and the organizer can try again.
    @discardableResult
    package func remove(guestID: String, eventID: String, withPhotos: Bool, for identity: Identity?) async throws -> Int {
        let event = try await events.organizedEvent(eventID, for: identity)
        guard guestID.utf8.count <= 64, let guest = try await guests.find(id: guestID), guest.eventID == event.id, guest.leftAt == nil else {
            throw Self.unknownGuest
        }
        let deleted = withPhotos ? try await photos.deleteAll(by: guest.id, in: event) : 0
        // Their comments and likes go whatever the organizer chose for their photos (SOC-2, DECISIONS).
        try await photos.likes.removeAll(by: guest.id, eventID: event.id, now: events.clock.now)
        await photos.changes.refresh(event.id)
        try await guests.leave(guest, now: events.clock.now)
        return deleted
    }
}
