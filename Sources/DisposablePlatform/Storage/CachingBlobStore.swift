import DisposableCore
import Foundation
import NIOCore

/// A store that keeps small blobs read lately in memory (`RecentBlobs`) in front of another store: a gallery
/// asks for the same thumbnails again and again. Writes and deletes through it evict at once; a delete made
/// by another instance is served for at most the cache's lifetime (a minute).
package final class CachingBlobStore: BlobStore {
    package let store: any BlobStore
    private let recent: RecentBlobs

    package init(wrapping store: any BlobStore, recent: RecentBlobs = RecentBlobs()) {
        self.store = store
        self.recent = recent
    }

    /// The blob when this instance holds it in memory right now (no I/O: the media fast path calls it on an
    /// event loop).
    package func cached(key: String) -> ByteBuffer? { recent.get(key) }

    package func checkHealth() async throws { try await store.checkHealth() }

    package var keepsGivenFiles: Bool { store.keepsGivenFiles }

    package func put(file: URL, key: String, sha256: String, size: Int64) async throws {
        recent.remove(key)
        try await store.put(file: file, key: key, sha256: sha256, size: size)
    }

    package func put(data: Data, key: String) async throws {
        recent.remove(key)
        try await store.put(data: data, key: key)
    }

    package func contents(key: String) async throws -> ByteBuffer? {
        if let bytes = recent.get(key) { return bytes }
        let bytes = try await store.contents(key: key)
        if let bytes { recent.set(key, bytes) }
        return bytes
    }

    package func read(key: String, range: ClosedRange<Int64>?, _ consume: (ByteBuffer) async throws -> Void) async throws {
        try await store.read(key: key, range: range, consume)
    }

    package func withLocalFile<T: Sendable>(key: String, _ body: (String) async throws -> T) async throws -> T {
        try await store.withLocalFile(key: key, body)
    }

    package func delete(key: String) async throws {
        try await store.delete(key: key)
        // After the file is gone: a read racing the delete could otherwise put it straight back.
        recent.remove(key)
    }

    package func delete(prefix: String) async throws {
        try await store.delete(prefix: prefix)
        recent.remove(prefix: prefix)
    }

    package func list(prefix: String, after: String?, limit: Int) async throws -> [String] {
        try await store.list(prefix: prefix, after: after, limit: limit)
    }
}
