import Crypto
import Foundation
import NIOCore
import Testing

@testable import DisposableServer

/// What every `BlobStore` must do, run against each implementation (the local folder, the same behind the
/// memory cache; S3 joins with its issue).
@Suite("Blob stores: the shared conformance suite")
struct BlobStoreConformanceTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case local, cachedLocal
        var description: String { rawValue }
    }

    @Test("Put, read whole and by range, lend a local file, list by pages, delete by key and by prefix", arguments: Kind.allCases)
    func conformance(kind: Kind) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = try LocalBlobStore(root: folder.path)
        let store: any BlobStore = kind == .local ? local : CachingBlobStore(wrapping: local)
        try await BlobStoreConformance(store: store, scratch: folder.appendingPathComponent("scratch")).run()
    }
}

/// The suite itself, for any store.
struct BlobStoreConformance {
    let store: any BlobStore
    let scratch: URL

    func run() async throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try await store.checkHealth()

        // Missing blobs: nil, and deleting them is no error.
        #expect(try await store.contents(key: "events/e0/p0/original") == nil)
        try await store.delete(key: "events/e0/p0/original")

        // put(file:) of a finished file: readable whole, by range, and as a local file.
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = scratch.appendingPathComponent("upload")
        try bytes.write(to: file)
        try await store.put(file: file, key: "events/e1/p1/original", sha256: SHA256.hash(data: bytes).hex, size: Int64(bytes.count))
        #expect(try await store.contents(key: "events/e1/p1/original").map { Data(buffer: $0) } == bytes)
        var ranged = Data()
        try await store.read(key: "events/e1/p1/original", range: 1000...200_999) { ranged.append(Data(buffer: $0)) }
        #expect(ranged == bytes[1000...200_999])
        var whole = Data()
        try await store.read(key: "events/e1/p1/original", range: nil) { whole.append(Data(buffer: $0)) }
        #expect(whole == bytes)
        let lent = try await store.withLocalFile(key: "events/e1/p1/original") { path in try Data(contentsOf: URL(fileURLWithPath: path)) }
        #expect(lent == bytes)

        // put(data:) writes and overwrites.
        try await store.put(data: Data("first".utf8), key: "events/e1/p1/thumbnail.jpg")
        _ = try await store.contents(key: "events/e1/p1/thumbnail.jpg")
        try await store.put(data: Data("second".utf8), key: "events/e1/p1/thumbnail.jpg")
        #expect(try await store.contents(key: "events/e1/p1/thumbnail.jpg").map { String(buffer: $0) } == "second")

        // Listing: by prefix, in order, page by page.
        for index in 0..<5 { try await store.put(data: Data([UInt8(index)]), key: "events/e2/p\(index)/preview.jpg") }
        let expected = (0..<5).map { "events/e2/p\($0)/preview.jpg" }
        #expect(try await store.list(prefix: "events/e2/", after: nil, limit: 100) == expected)
        let firstPage = try await store.list(prefix: "events/e2/", after: nil, limit: 2)
        let secondPage = try await store.list(prefix: "events/e2/", after: firstPage.last, limit: 2)
        let lastPage = try await store.list(prefix: "events/e2/", after: secondPage.last, limit: 2)
        #expect(firstPage + secondPage + lastPage == expected)
        #expect(try await store.list(prefix: "events/", after: nil, limit: 100).count == 7)
        #expect(try await store.list(prefix: "events/e9/", after: nil, limit: 100).isEmpty)

        // Deleting: one key, then a whole prefix; what is gone is not served from anywhere.
        try await store.delete(key: "events/e1/p1/thumbnail.jpg")
        #expect(try await store.contents(key: "events/e1/p1/thumbnail.jpg") == nil)
        try await store.delete(prefix: "events/e2/")
        #expect(try await store.list(prefix: "events/e2/", after: nil, limit: 100).isEmpty)
        #expect(try await store.contents(key: "events/e2/p0/preview.jpg") == nil)
        #expect(try await store.list(prefix: "events/", after: nil, limit: 100) == ["events/e1/p1/original"])
    }
}
