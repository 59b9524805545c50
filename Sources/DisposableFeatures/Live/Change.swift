import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// An event's feed moved, by a write that changed nothing else of the event's row (a photo added or rendered).
package struct FeedMove: Sendable, Equatable {
    /// The position the write started from, and the one it left.
    package let from: Int64
    package let to: Int64
}

/// What the `ChangeHub` heard of an event, told to what remembers event rows (`RecentReads.heard`).
package enum EventNews: Sendable, Equatable {
    /// Something changed: a row read before may be out of date.
    case changed
    /// A write here only moved the feed: a row read just before it moves along.
    case moved(FeedMove)
    /// A commit told through PostgreSQL left the feed at this position, which the hub had read already or which a
    /// write here reached (its own commit told back): only a row read before that position is out of date.
    case reached(Int64)
}

/// One entry of an event's change log.
public struct Change: Sendable {
    public let seq: Int64
    public let kind: ChangeKind
    /// The photo it is about, and who took it: what decides, per viewer, `mine` and what is disclosed.
    public let photoID: String?
    public let uploaderID: String?
    /// What happened, as nobody in particular sees it (`mine` false, links unsigned); `ChangeViewer` makes
    /// each subscriber's version of it when it is sent.
    public let facts: ChangePayload
    public let createdAt: Date
}
