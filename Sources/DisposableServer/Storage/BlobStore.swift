import Foundation

/// Where photo bytes live: the local folder (embedded default) or, later, an S3-compatible bucket.
/// The photos feature adds put/open/delete; for now an instance only needs to know storage is usable.
public protocol BlobStore: Sendable {
    /// Throws when storage cannot be written (for `/healthz`).
    func checkHealth() async throws
}

/// Blobs as files under one folder. Paths are derived from our own ids, never from user input.
struct LocalBlobStore: BlobStore {
    let root: URL

    init(root: String) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
    }

    func checkHealth() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: root.path)
        else {
            throw ConfigurationError("The media folder \(root.path) is missing or not writable.")
        }
    }
}
