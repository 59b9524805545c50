import DisposableAPI
import Foundation

/// An event's feed moved, by a write that changed nothing else of the event's row (a photo added): what remembers
/// the row moves it along rather than reading it again (`RecentReads.eventMoved`).
struct FeedMove: Sendable, Equatable {
    /// The position the write started from, and the one it left.
    let from: Int64
    let to: Int64
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
