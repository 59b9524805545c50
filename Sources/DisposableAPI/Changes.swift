import Foundation

/// What happened to an event (LIVE-1). The raw values are the SSE event names.
public enum ChangeKind: String, Sendable, Codable {
    case photoAdded = "photo-added"
    case photoReady = "photo-ready"
    case photoFailed = "photo-failed"
    case photoRemoved = "photo-removed"
    /// Its caption or shooter name changed (SOC-1), or its preview was made after it was shown.
    case photoUpdated = "photo-updated"
    /// SOC-2: a comment on a post, and one taken down.
    case commentAdded = "comment-added"
    case commentRemoved = "comment-removed"
    /// SOC-2: a post's like count moved (never who liked it).
    case likesChanged = "likes-changed"
    case eventRevealed = "event-revealed"
    case eventUpdated = "event-updated"
    case eventEnded = "event-ended"
    case eventDeleted = "event-deleted"
}

/// One change as a subscriber sees it: the `data:` of an SSE event, and `change` in a JSON page.
/// Which members are present depends on `kind`.
public struct ChangePayload: Codable, Sendable, Equatable {
    public var kind: ChangeKind
    /// photo-added, photo-ready, photo-failed: the photo, unless the viewer may not see it yet.
    public var photo: PhotoJSON?
    /// photo-removed; comment-added, comment-removed, likes-changed: the post.
    public var photoId: String?
    /// comment-added.
    public var comment: CommentJSON?
    /// comment-removed.
    public var commentId: String?
    /// comment-added, comment-removed: the post's comments now.
    public var commentCount: Int?
    /// likes-changed: the post's likes now.
    public var likeCount: Int?
    /// event-updated.
    public var event: EventJSON?
    /// event-ended.
    public var endsAt: Date?
    /// event-revealed.
    public var revealedAt: Date?
    /// A photo change hidden until the reveal: enough to count "developing" photos.
    public var developing: Bool?
    /// A photo change hidden until the organizer approves it (ORG-4).
    public var awaitingApproval: Bool?

    public init(
        kind: ChangeKind, photo: PhotoJSON? = nil, photoId: String? = nil, event: EventJSON? = nil, endsAt: Date? = nil,
        revealedAt: Date? = nil, developing: Bool? = nil, awaitingApproval: Bool? = nil, comment: CommentJSON? = nil,
        commentId: String? = nil, commentCount: Int? = nil, likeCount: Int? = nil
    ) {
        self.comment = comment
        self.commentId = commentId
        self.commentCount = commentCount
        self.likeCount = likeCount
        self.kind = kind
        self.photo = photo
        self.photoId = photoId
        self.event = event
        self.endsAt = endsAt
        self.revealedAt = revealedAt
        self.developing = developing
        self.awaitingApproval = awaitingApproval
    }
}

/// One entry of the change feed as JSON (LIVE-3).
public struct ChangeEntry: Codable, Sendable {
    public var seq: Int64
    public var kind: ChangeKind
    public var createdAt: Date
    public var change: ChangePayload

    public init(seq: Int64, kind: ChangeKind, createdAt: Date, change: ChangePayload) {
        self.seq = seq
        self.kind = kind
        self.createdAt = createdAt
        self.change = change
    }
}

/// `GET /api/v1/events/{id}/changes?since=N` with `Accept: application/json`.
public struct ChangePage: Codable, Sendable {
    public var items: [ChangeEntry]
    /// Ask again with `since` = this.
    public var next: Int64
    public var hasMore: Bool

    public init(items: [ChangeEntry], next: Int64, hasMore: Bool) {
        self.items = items
        self.next = next
        self.hasMore = hasMore
    }
}
