import Foundation

/// One thing a person is told in the app (SOC-3).
public struct NotificationJSON: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// Someone liked my post.
        case liked
        /// Someone commented on my post; `text` holds their words.
        case commented
        /// The event's photos were revealed.
        case revealed
        /// The event will be deleted at `deletesAt` (RET-3).
        case endingSoon = "ending-soon"
        /// The event has ended and its recap is ready (CAP-1).
        case recap
        /// Last month's capsule is out (CAP-2); `period` is its month, `yyyy-mm`. About no event.
        case capsule
        /// The year is over and its moments' recap is ready (CAP-3); `period` is the year. About no event.
        case momentsRecap = "moments-recap"
        /// Someone asks to be my friend; `actorName` is who. About no event.
        case friendRequest = "friend-request"
        /// Someone I asked said yes; `actorName` is who. About no event.
        case friendAccepted = "friend-accepted"
        /// A friend shared their capsule of `period` to the Story Board; `actorName` is who.
        case capsuleShared = "capsule-shared"
        /// A friend reacted to my shared capsule of `period` (`text` is the emoji).
        case capsuleReaction = "capsule-reaction"
        /// A friend commented on my shared capsule of `period` (`text` is the comment).
        case capsuleComment = "capsule-comment"
    }

    public var id: String
    public var kind: Kind
    /// The event it is about; nil for a capsule or a year of moments.
    public var eventId: String?
    public var eventName: String?
    /// The event's code, for its pages (`/e/{code}`).
    public var eventCode: String?
    /// The month (`yyyy-mm`) of a capsule, or the year of a moments recap.
    public var period: String?
    /// The post it is about (likes and comments).
    public var photoId: String?
    /// Who did it (likes and comments): the name they go by in the event.
    public var actorName: String?
    public var text: String?
    public var deletesAt: Date?
    public var createdAt: Date
    public var read: Bool
    /// The notice in the reader's language, as the bell and a phone show it: worded once, on the server.
    public var message: String?
    /// The page it opens (a path on this server).
    public var link: String?

    public init(
        id: String, kind: Kind, eventId: String?, eventName: String?, eventCode: String?, photoId: String?, actorName: String?, text: String?,
        deletesAt: Date?, createdAt: Date, read: Bool, period: String? = nil, message: String? = nil, link: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.eventId = eventId
        self.eventName = eventName
        self.eventCode = eventCode
        self.period = period
        self.photoId = photoId
        self.actorName = actorName
        self.text = text
        self.deletesAt = deletesAt
        self.createdAt = createdAt
        self.read = read
        self.message = message
        self.link = link
    }
}

/// `GET /api/v1/notifications`: newest first, with how many are unread in all.
public struct NotificationPage: Codable, Sendable {
    public var items: [NotificationJSON]
    public var unreadCount: Int
    public var nextCursor: String?

    public init(items: [NotificationJSON], unreadCount: Int, nextCursor: String?) {
        self.items = items
        self.unreadCount = unreadCount
        self.nextCursor = nextCursor
    }
}

/// `POST /api/v1/notifications/read`: these ones, or (without `ids`) all of them.
public struct NotificationsRead: Codable, Sendable {
    public var ids: [String]?

    public init(ids: [String]?) {
        self.ids = ids
    }
}

/// How many notifications are unread (the bell's number).
public struct UnreadCount: Codable, Sendable, Equatable {
    public var unreadCount: Int

    public init(unreadCount: Int) {
        self.unreadCount = unreadCount
    }
}
