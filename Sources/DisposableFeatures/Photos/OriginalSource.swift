import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore

/// A stored original as served: as stored to its shooter; to anyone else with its location taken out
/// (`LocationRedactor`), same length, so ranges and the ZIP's sizes hold.
package struct OriginalSource: Sendable {
    package let blobs: any BlobStore
    package let photo: Photo
    /// Nil for the shooter.
    package let redactions: LocationRedactions?

    package var stripGPS: Bool { redactions != nil }

    package init(blobs: any BlobStore, photo: Photo, redactions: LocationRedactions?) {
        self.blobs = blobs
        self.photo = photo
        self.redactions = redactions
    }

    /// Works out (and keeps) where the location sits in the file, for a download to anyone but the shooter.
    package func prepare() async throws {
        if let redactions { _ = try await redactions.redaction(of: photo, in: blobs) }
    }

    package func stream(range: ClosedRange<Int64>?, _ write: (ByteBuffer) async throws -> Void) async throws {
        guard photo.byteSize > 0 else { return }
        let key = BlobKey.original(photo.eventID, photo.id)
        let range = range ?? 0...(photo.byteSize - 1)
        guard let redactions else { return try await blobs.read(key: key, range: range, write) }
        let redaction = try await redactions.redaction(of: photo, in: blobs)
        var offset = range.lowerBound
        try await blobs.read(key: key, range: range) { chunk in
            var chunk = chunk
            redaction.apply(to: &chunk, at: offset)
            offset += Int64(chunk.readableBytes)
            try await write(chunk)
        }
    }
}
