import DisposableCore
import Foundation
import NIOCore

/// Where photo bytes live: the local folder (embedded default) or an S3-compatible bucket. Keys are built from
/// our own ids (`events/<event>/<photo>/original`), never from user input. Every implementation passes the
/// same conformance suite (`BlobStoreConformance` in the tests).
public protocol BlobStore: Sendable {
    /// Throws when storage cannot be written (for `/healthz`).
    func checkHealth() async throws
    /// Stores a complete local file under `key`; durable when it returns. The file may be moved away; the caller
    /// removes whatever is left of it. `sha256` and `size` are the file's, for stores that check them.
    func put(file: URL, key: String, sha256: String, size: Int64) async throws
    /// Whether `put(file:)` keeps the very file it is given (a rename), which must then be synced before; a store
    /// that writes the bytes elsewhere (a bucket, a sealed copy) makes its own copy durable and takes files unsynced.
    var keepsGivenFiles: Bool { get }
    /// Stores `data` under `key`; durable when it returns.
    func put(data: Data, key: String) async throws
    /// A small blob (a thumbnail, a preview) read whole; nil when there is none.
    func contents(key: String) async throws -> ByteBuffer?
    /// Streams a blob (or a byte range of it) to `consume`, chunk by chunk.
    func read(key: String, range: ClosedRange<Int64>?, _ consume: (ByteBuffer) async throws -> Void) async throws
    /// Runs `body` with a local file holding the blob (libvips reads files). Stores that keep files locally
    /// lend their own; the default copies the blob to a temporary file.
    func withLocalFile<T: Sendable>(key: String, _ body: (String) async throws -> T) async throws -> T
    /// Removes a blob; no error when there is none.
    func delete(key: String) async throws
    /// Removes every blob whose key starts with `prefix` (an event, a photo).
    func delete(prefix: String) async throws
    /// Up to `limit` keys starting with `prefix`, in ascending order, after `after` (a page of a listing).
    func list(prefix: String, after: String?, limit: Int) async throws -> [String]
}

extension BlobStore {
    public var keepsGivenFiles: Bool { true }

    public func withLocalFile<T: Sendable>(key: String, _ body: (String) async throws -> T) async throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-\(UUID().uuidString)").path
        defer { unlink(path) }
        try await copy(key: key, toNewFile: path)
        return try await body(path)
    }

    /// The blob, as `read` gives it, into a new file at `path`.
    package func copy(key: String, toNewFile path: String) async throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DurableFiles.error("open temporary file") }
        do {
            try await read(key: key, range: nil) { chunk in
                try chunk.withUnsafeReadableBytes { try DurableFiles.writeAll(fd, $0) }
            }
            close(fd)
        } catch {
            close(fd)
            throw error
        }
    }
}

/// Blob keys of a photo.
package enum BlobKey {
    package static func event(_ eventID: String) -> String { "events/\(eventID)/" }
    package static func photo(_ eventID: String, _ photoID: String) -> String { "events/\(eventID)/\(photoID)/" }
    package static func original(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "original" }
    package static func preview(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "preview.jpg" }
    package static func thumbnail(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "thumbnail.jpg" }
    /// A video post's web-playable copy (SOC-4).
    package static func video(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "video.mp4" }
    /// The phone's own small picture, shown until the server's thumbnail and preview exist (`FirstLook`).
    package static func firstLook(_ eventID: String, _ photoID: String) -> String { photo(eventID, photoID) + "first-look.jpg" }
}

/// The disk is full (REL-2): callers answer 507.
public struct StorageFull: Error { package init() {} }

/// Builds the store the instance's data names — sealed when a storage key is set — wrapped in the memory cache of
/// small files (which holds them opened).
package func makeBlobStore(_ data: InstanceData) throws -> CachingBlobStore {
    let store = try makeStoredBlobStore(data)
    return CachingBlobStore(wrapping: data.storageKey.map { SealedBlobStore(inner: store, storageKey: $0) } ?? store)
}

/// The folder or bucket itself, its bytes as stored (sealed ones sealed): what backups copy.
package func makeStoredBlobStore(_ data: InstanceData) throws -> any BlobStore {
    switch data.storage {
    case .localFolder(let path): try LocalBlobStore(root: path)
    case .s3(let settings): try S3BlobStore(settings: settings)
    }
}
