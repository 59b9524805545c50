import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore

/// The local folder where upload bodies are written while they arrive and are checked, whatever the store.
/// For the local store it lies on the store's filesystem, so storing a checked upload is a rename.
package struct UploadStaging: Sendable {
    package let directory: URL

    package init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Streams a body to a new staging file while its SHA-256 is computed; 413 past `maxBytes`. Synced when `sync`
    /// (the store keeps the very file).
    package func receive(_ body: some AsyncSequence<ByteBuffer, any Error>, maxBytes: Int64, sync: Bool) async throws -> StagedUpload {
        try await StagedUpload.receive(body, into: directory, maxBytes: maxBytes, sync: sync)
    }

    /// Empties the folder: what is there at start-up was never acknowledged.
    package func clear() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}
