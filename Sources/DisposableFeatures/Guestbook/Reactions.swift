/// What people do to what others share — a post in an event (SOC-2), a capsule on the Story Board — under one set of
/// rules: how a comment is written, who takes it down, when the owner is told. Where they
/// are stored differs (a post's comments and likes count on its row and reach live viewers; a capsule's do not).
import DisposableCore
import DisposablePlatform

package enum Reactions {
    /// A comment: a line or two.
    package static let maxCommentLength = 500
    /// A capsule is never so discussed; a bound, not a quota anyone meets (a post's comments are bounded by each
    /// writer's rate, as they always were).
    package static let maxComments = 500
    /// A capsule's reactions: one of these per friend.
    package static let emojis = ["❤️", "😂", "😮", "😢", "👏", "🔥"]

    /// The comment as kept: trimmed, not empty, at most `maxCommentLength`, no control characters (`Guestbook.text`).
    package static func comment(_ raw: String) throws -> String {
        try Guestbook.text(raw, field: "text", max: maxCommentLength, lines: true, what: "a comment")
    }

    /// Its author, or whoever owns what it is written on (the organizer, the capsule's owner), takes a comment down.
    package static func mayDelete(commentBy authorID: String, viewerID: String, viewerOwnsTarget: Bool) -> Bool {
        authorID == viewerID || viewerOwnsTarget
    }

    /// Nobody is told of what they did to their own things.
    package static func tellsOwner(actorID: String, ownerID: String?) -> Bool { ownerID != nil && actorID != ownerID }

    package static func tooManyComments(_ count: Int, on what: String) -> Problem {
        Problem.conflict("too-many-comments", "This \(what) has \(count) comments: that is as many as it takes.")
    }
}
