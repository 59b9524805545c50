import DisposableCore
import DisposablePlatform
import NIOConcurrencyHelpers
import NIOPosix

/// The redaction of each original served to others (MED-2), worked out on first need and remembered: an
/// original never changes, and a gallery's guests ask for the same ones.
package final class LocationRedactions: Sendable {
    private let known = NIOLockedValueBox<[String: Redaction]>([:])
    private static let limit = 20_000

    package func redaction(of photo: Photo, in blobs: any BlobStore) async throws -> Redaction {
        if let redaction = known.withLockedValue({ $0[photo.id] }) { return redaction }
        let redaction = try await blobs.withLocalFile(key: BlobKey.original(photo.eventID, photo.id)) { path in
            try await NIOThreadPool.singleton.runIfActive { try LocationRedactor.redaction(forFileAt: path) }
        }
        known.withLockedValue { known in
            if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
            known[photo.id] = redaction
        }
        return redaction
    }

    package init() {}
}
