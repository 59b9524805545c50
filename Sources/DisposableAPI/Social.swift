import Foundation

/// `PATCH /api/v1/photos/{id}` (SOC-1): the shooter's caption; null or empty removes it.
public struct PhotoEdit: Codable, Sendable {
    public var caption: String?

    public init(caption: String?) {
        self.caption = caption
    }
}

/// `POST /api/v1/events/{id}/notes` (SOC-1): a guestbook message.
public struct NoteInput: Codable, Sendable {
    public var text: String

    public init(text: String) {
        self.text = text
    }
}

/// `GET /api/v1/events/{id}/notes`: the guestbook's messages, newest first.
public struct NotePage: Codable, Sendable {
    public var items: [PhotoJSON]
    public var nextCursor: String?

    public init(items: [PhotoJSON], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// A comment on a post (SOC-2).
public struct CommentJSON: Codable, Sendable, Equatable {
    public struct Author: Codable, Sendable, Equatable {
        public var name: String
        /// Their account's picture (SOC-5); without one, clients show the name's initial.
        public var avatarURL: String?

        public init(name: String, avatarURL: String?) {
            self.name = name
            self.avatarURL = avatarURL
        }
    }

    public var id: String
    public var photoId: String
    public var author: Author
    public var text: String
    public var createdAt: Date
    /// True for the caller's own comments; absent in the change feed.
    public var mine: Bool?

    public init(id: String, photoId: String, author: Author, text: String, createdAt: Date, mine: Bool?) {
        self.id = id
        self.photoId = photoId
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.mine = mine
    }
}

/// `POST /api/v1/photos/{id}/comments`.
public struct CommentInput: Codable, Sendable {
    public var text: String

    public init(text: String) {
        self.text = text
    }
}

/// `GET /api/v1/photos/{id}/comments`: oldest first, as a conversation reads.
public struct CommentPage: Codable, Sendable {
    public var items: [CommentJSON]
    public var nextCursor: String?

    public init(items: [CommentJSON], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// `PUT` / `DELETE /api/v1/photos/{id}/like`: where the post's likes stand now.
public struct LikeState: Codable, Sendable, Equatable {
    public var photoId: String
    public var likeCount: Int
    public var likedByMe: Bool

    public init(photoId: String, likeCount: Int, likedByMe: Bool) {
        self.photoId = photoId
        self.likeCount = likeCount
        self.likedByMe = likedByMe
    }
}
