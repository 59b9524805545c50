import DisposableCore
import Foundation
import NIOCore

/// Blobs as objects in an S3-compatible bucket (OPS-4): what lets several instances share photos with no
/// shared folder. Durable when S3 says 200, which it only says once the object is whole.
package struct S3BlobStore: BlobStore {
    package let client: S3Client

    package init(settings: S3Settings) throws {
        client = try S3Client(settings: settings)
    }

    package func checkHealth() async throws {
        try await client.checkBucket()
    }

    /// The bucket's answer is the durability; the local file is only read.
    package var keepsGivenFiles: Bool { false }

    package func put(file: URL, key: String, sha256: String, size: Int64) async throws {
        try await client.put(file: file, key: key, sha256: sha256, size: size)
    }

    package func put(data: Data, key: String) async throws {
        try await client.put(data: data, key: key)
    }

    package func contents(key: String) async throws -> ByteBuffer? {
        guard let body = try await client.get(key: key, range: nil) else { return nil }
        return try await body.collect(upTo: 256 << 20)
    }

    package func read(key: String, range: ClosedRange<Int64>?, _ consume: (ByteBuffer) async throws -> Void) async throws {
        guard let body = try await client.get(key: key, range: range) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: key])
        }
        for try await chunk in body { try await consume(chunk) }
    }

    package func delete(key: String) async throws {
        try await client.delete(key: key)
    }

    package func delete(prefix: String) async throws {
        // Page by page from the start: each page deleted is gone from the next listing.
        while true {
            let page = try await client.list(prefix: prefix, after: nil, limit: 1000)
            try await client.delete(keys: page.keys)
            if !page.more || page.keys.isEmpty { return }
        }
    }

    package func list(prefix: String, after: String?, limit: Int) async throws -> [String] {
        var keys: [String] = []
        var last = after
        while keys.count < limit {
            let page = try await client.list(prefix: prefix, after: last, limit: limit - keys.count)
            keys += page.keys
            last = page.keys.last
            if !page.more || page.keys.isEmpty { break }
        }
        return keys
    }
}
