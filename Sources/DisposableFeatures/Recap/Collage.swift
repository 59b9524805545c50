import Crypto
import DisposableCore
import DisposablePlatform
import Foundation

/// A collage image of stored pictures — a recap's (CAP-1), a capsule's (CAP-2) — titled, 1080 px wide. Made once for
/// each set of pictures and words, kept beside what it shows (so it goes with it), then read back.
package struct Collage: Sendable {
    package let blobs: any BlobStore
    package let images: any ImageProcessor

    package static let width = 1080

    /// The collage of the previews at `previews` (missing ones left out), kept in `folder`; nil when none is left.
    /// The fingerprint (what it shows, hashed) names the file and serves as its ETag.
    package func image(previews: [String], title: String, subtitle: String, folder: String) async throws -> (Data, fingerprint: String)? {
        let fingerprint = SHA256.hash(data: Data(([title, subtitle] + previews).joined(separator: "\n").utf8))
            .prefix(12).map { String(format: "%02x", $0) }.joined()
        let key = folder + "collage-\(fingerprint).jpg"
        if let kept = try await blobs.contents(key: key) { return (Data(buffer: kept), fingerprint) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-collage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var paths: [String] = []
        for preview in previews {
            guard let bytes = try await blobs.contents(key: preview) else { continue }
            let path = scratch.appendingPathComponent("\(paths.count).jpg").path
            guard FileManager.default.createFile(atPath: path, contents: Data(buffer: bytes)) else { throw DurableFiles.error("write \(path)") }
            paths.append(path)
        }
        guard !paths.isEmpty else { return nil }
        let image = try await images.collage(paths, columns: Self.columns(for: paths.count), width: Self.width, title: title, subtitle: subtitle)
        try await blobs.put(data: image, key: key)
        return (image, fingerprint)
    }

    /// Rows as full as can be: three photos side by side, four as a square, up to nine in threes, then fours.
    package static func columns(for count: Int) -> Int { count <= 3 ? count : count == 4 ? 2 : count <= 9 ? 3 : 4 }
}
