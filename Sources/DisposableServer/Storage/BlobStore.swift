import Foundation
import NIOCore

/// Where photo bytes live: the local folder (embedded default) or, later, an S3-compatible bucket.
/// Keys are built from our own ids (`events/<event>/<photo>/original`), never from user input.
public protocol BlobStore: Sendable {
    /// Throws when storage cannot be written (for `/healthz`).
    func checkHealth() async throws
    /// A local folder for uploads in progress, on the same filesystem as the store when it is local.
    var stagingDirectory: URL { get }
    /// Moves a complete, synced staging file under `key`; durable when it returns.
    func put(file: URL, key: String) async throws
    /// Stores `data` under `key`; durable when it returns.
    func put(data: Data, key: String) async throws
    /// A small blob (a thumbnail, a preview) read whole in one go; nil when there is none.
    func contents(key: String) async throws -> ByteBuffer?
    /// The blob when this instance holds it in memory right now (no I/O: called on an event loop).
    func cached(key: String) -> ByteBuffer?
    /// Streams a blob (or a byte range of it) to `consume`, chunk by chunk.
    func read(key: String, range: ClosedRange<Int64>?, _ consume: (ByteBuffer) async throws -> Void) async throws
    /// Runs `body` with a local file holding the blob (libvips reads files).
    func withLocalFile<T: Sendable>(key: String, _ body: (String) async throws -> T) async throws -> T
    func delete(key: String) async throws
    /// Deletes every blob whose key starts with `prefix` (an event, a photo).
    func delete(prefix: String) async throws
    /// The keys directly below `prefix` that are "folders" (e.g. photo ids of an event), for the orphan sweep.
    func children(of prefix: String) async throws -> [String]
}

/// Blob keys of a photo.
enum BlobKey {
    static func event(_ eventID: String) -> String { "events/\(eventID)/" }
    static func photo(_ eventID: String, _ photoID: String) -> String { "events/\(eventID)/\(photoID)/" }
    static func original(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "original" }
    static func preview(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "preview.jpg" }
    static func thumbnail(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "thumbnail.jpg" }
    /// The file a signed media link names.
    static func media(_ file: MediaLinks.File, _ eventID: String, _ photoID: String) -> String {
        file == .thumbnail ? thumbnail(eventID, photoID) : preview(eventID, photoID)
    }
}

/// The disk is full (REL-2): callers answer 507.
public struct StorageFull: Error {}
