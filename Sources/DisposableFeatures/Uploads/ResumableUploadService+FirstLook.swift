import DisposableCore
import DisposablePlatform
import Foundation
import NIOPosix

/// The phone's first look at a photo sent in pieces (`FirstLook`): a small request of its own, any time before the
/// last byte. Checked at once as far as it can be without the photo, kept beside the upload's bytes, and handed to
/// its target with them; its shape is checked against the photo when the last byte is in.
extension ResumableUploadService {
    package func setFirstLook(_ id: String, jpeg: Data, for identity: Identity?) async throws {
        let (upload, destination) = try await owned(id, by: identity)
        guard upload.photoID == nil, !upload.isComplete else {
            throw Problem(
                .conflict, "upload-complete", title: "Upload complete",
                detail: "This upload already has all its bytes: its first look had to come before the last one.")
        }
        do {
            try await destination.target.checkFirstLook(jpeg)
        } catch let refusal as FirstLookRefusal {
            throw Problem.firstLookRefusedBeside(refusal.reason)
        }
        let (file, scratch) = (firstLookFile(id), firstLookFile(id).appendingPathExtension("new"))
        let stored = try sealing.map { try SealedBlob.sealed(jpeg, storageKey: $0.storageKey, key: Self.firstLookKey(id)) } ?? jpeg
        try await NIOThreadPool.singleton.runIfActive {
            try stored.write(to: scratch)
            // Whole or absent: the last byte may arrive while this one is written.
            guard rename(scratch.path, file.path) == 0 else { throw DurableFiles.error("rename first look") }
        }
    }

    /// The first look sent for an upload, if any.
    package func firstLook(of id: String) -> Data? {
        guard let stored = try? Data(contentsOf: firstLookFile(id)) else { return nil }
        guard let sealing else { return stored }
        return try? SealedBlob.opened(Array(stored), storageKey: sealing.storageKey, key: Self.firstLookKey(id))
    }

    private static func firstLookKey(_ id: String) -> String { "resumable/\(id).first-look" }

    package func firstLookFile(_ id: String) -> URL { directory.appendingPathComponent(id + ".first-look") }
}
