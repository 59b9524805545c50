import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore

/// GAL-5: the wall a venue screen shows. Its link (`/w/KEY`) opens without signing in, so a laptop on a
/// projector needs no account; it shows what every guest may see (approved, revealed photos) and nothing
/// else. The organizer makes the link, replaces it (the old one stops working at once) or turns it off.
package struct VenueWall: Sendable {
    package let events: EventService
    package let gallery: GalleryService

    package init(events: EventService, gallery: GalleryService) {
        self.events = events
        self.gallery = gallery
    }

    /// Whom the wall's photos are shown as: a guest who shot nothing.
    package static let viewerID = "wall"
    package static let unknownLink = Problem.notFound("This wall link does not exist or was turned off. Ask the organizer for a new one.")

    /// The wall link of an event the caller organizes, made on first use; `renew` replaces it with a new one.
    package func link(eventID: String, for identity: Identity?, renew: Bool = false) async throws -> String {
        let event = try await events.organizedEvent(eventID, for: identity)
        if let key = event.wallKey, !renew { return url(key) }
        try await events.setWallKey(eventID: event.id, Self.newKey(), replacing: renew)
        // Two first uses at once: both get the key that was stored first.
        guard let key = try await events.find(id: event.id)?.wallKey else { throw EventService.notFound }
        return url(key)
    }

    /// Turns the wall link off: screens showing it stop within seconds (their feed checks it).
    package func turnOff(eventID: String, for identity: Identity?) async throws {
        let event = try await events.organizedEvent(eventID, for: identity)
        try await events.setWallKey(eventID: event.id, nil, replacing: true)
    }

    /// The event a wall key opens, while both are valid.
    package func event(key: String) async throws -> Event {
        guard Self.isWellFormed(key), let event = try await events.find(wallKey: key), events.isKept(event) else {
            throw Self.unknownLink
        }
        return event
    }

    /// Whether `key` still opens `eventID` (a live wall checks every few seconds).
    package func opens(key: String, eventID: String) async throws -> Bool {
        (try? await event(key: key))?.id == eventID
    }

    /// The newest photos every guest may see, as a gallery page (the change feed's position included).
    package func photos(key: String, limit: Int, cursor: String?) async throws -> ByteBuffer {
        let event = try await event(key: key)
        return try await gallery.page(
            .init(eventID: event.id, mine: false, order: .uploaded, cursor: cursor, limit: limit), in: event, role: .guest,
            viewerID: Self.viewerID)
    }

    package func url(_ key: String) -> String { "\(events.links.publicBaseURL)/w/\(key)" }

    private static func newKey() -> String { SecretToken.generate() }

    /// Keys we hand out are 43 URL-safe base64 characters; anything else is not looked up.
    package static func isWellFormed(_ key: String) -> Bool {
        key.utf8.count == 43 && key.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
