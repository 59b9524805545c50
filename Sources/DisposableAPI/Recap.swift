import Foundation

/// CAP-1: an event's recap — its best photos, chosen without near-duplicates, spread over the day and the
/// shooters — and the collage image made of them.
public struct RecapJSON: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// The event has ended: this is its recap.
        case ready
        /// The organizer's look before the end: it changes as photos arrive.
        case preview
        /// A guest's look before the end: nothing yet; it opens at `readyAt`.
        case waiting
    }

    public var eventId: String
    public var eventName: String
    public var status: Status
    /// When the event ends and the recap is everyone's.
    public var readyAt: Date
    /// The chosen photos, in the order they were taken (none while waiting).
    public var photos: [PhotoJSON]
    /// The collage of these photos (a JPEG, 1080 px wide), when there are photos.
    public var collageURL: String?

    public init(eventId: String, eventName: String, status: Status, readyAt: Date, photos: [PhotoJSON], collageURL: String?) {
        self.eventId = eventId
        self.eventName = eventName
        self.status = status
        self.readyAt = readyAt
        self.photos = photos
        self.collageURL = collageURL
    }
}
