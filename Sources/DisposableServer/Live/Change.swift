import DisposableAPI
import Foundation

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
