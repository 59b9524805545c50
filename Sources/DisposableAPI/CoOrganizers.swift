import Foundation

/// `POST /api/v1/events/{id}/co-organizers/invitations`: a link that makes whoever opens it, signed in, a
/// co-organizer of the event. Shown once; used once; valid for a week.
public struct CoOrganizerInvitation: Codable, Sendable {
    public var token: String
    public var url: String
    public var expiresAt: Date

    public init(token: String, url: String, expiresAt: Date) {
        self.token = token
        self.url = url
        self.expiresAt = expiresAt
    }
}

/// Someone who organizes an event: its owner, or a co-organizer.
public struct EventOrganizer: Codable, Sendable, Equatable {
    public var userId: String
    public var name: String
    /// When a co-organizer accepted their invitation; absent for the owner.
    public var addedAt: Date?

    public init(userId: String, name: String, addedAt: Date? = nil) {
        self.userId = userId
        self.name = name
        self.addedAt = addedAt
    }
}

/// `GET /api/v1/events/{id}/co-organizers`: the owner and the co-organizers, in the order they joined.
public struct CoOrganizerList: Codable, Sendable {
    public var owner: EventOrganizer
    public var items: [EventOrganizer]

    public init(owner: EventOrganizer, items: [EventOrganizer]) {
        self.owner = owner
        self.items = items
    }
}
