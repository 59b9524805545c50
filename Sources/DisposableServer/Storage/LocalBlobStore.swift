import Foundation
import NIOCore
import NIOPosix
import _NIOFileSystem

/// Blobs as files under one folder. Every write is: temporary file, fsync, rename, fsync of the folder —
/// so a blob is either absent or complete after a crash, and present once `put` returned.
struct LocalBlobStore: BlobStore {
    let root: URL
    let stagingDirectory: URL

    init(root: String) throws {
        self.root = URL(fileURLWithPath: root, isDirectory: true)
        stagingDirectory = self.root.appendingPathComponent("staging", isDirectory: true)
        try FileManager.default.createDirectory(at: stagingDirectory, withIntermediateDirectories: true)
    }

    func checkHealth() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: root.path)
        else {
            throw ConfigurationError("The media folder \(root.path) is missing or not writable.")
        }
    }

    func path(_ key: String) -> String {
        precondition(!key.contains("..") && !key.hasPrefix("/"), "blob keys are built from ids")
        return root.appendingPathComponent(key).path
    }

    func put(file: URL, key: String) async throws {
        let destination = path(key)
        try await NIOThreadPool.singleton.runIfActive {
            try DurableFiles.makeParentDirectories(of: destination)
            try DurableFiles.rename(file.path, to: destination)
        }
    }

    func put(data: Data, key: String) async throws {
        let destination = path(key)
        let staging = stagingDirectory.appendingPathComponent(UUID().uuidString).path
        try await NIOThreadPool.singleton.runIfActive {
            do {
                try DurableFiles.write(data, to: staging)
                try DurableFiles.makeParentDirectories(of: destination)
                try DurableFiles.rename(staging, to: destination)
            } catch {
                unlink(staging)
                throw error
            }
        }
    }

    func size(key: String) async throws -> Int64? {
        let path = path(key)
        return try await NIOThreadPool.singleton.runIfActive {
            var info = stat()
            return stat(path, &info) == 0 ? Int64(info.st_size) : nil
        }
    }

    func read(key: String, range: ClosedRange<Int64>?, _ consume: (ByteBuffer) async throws -> Void) async throws {
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path(key))) { handle in
            let chunks =
                if let range { handle.readChunks(in: range, chunkLength: .kibibytes(256)) } else { handle.readChunks(chunkLength: .kibibytes(256)) }
            for try await chunk in chunks { try await consume(chunk) }
        }
    }

    func withLocalFile<T: Sendable>(key: String, _ body: (String) async throws -> T) async throws -> T {
        try await body(path(key))
    }

    func delete(key: String) async throws {
        let path = path(key)
        try await NIOThreadPool.singleton.runIfActive { _ = unlink(path) }
    }

    func delete(prefix: String) async throws {
        let path = path(prefix)
        try await NIOThreadPool.singleton.runIfActive { try? FileManager.default.removeItem(atPath: path) }
    }

    func children(of prefix: String) async throws -> [String] {
        let path = path(prefix)
        return try await NIOThreadPool.singleton.runIfActive {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        }
    }

    /// Empties the staging folder: what is there at start-up was never acknowledged.
    func clearStaging() throws {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: stagingDirectory.path)) ?? [] {
            try? FileManager.default.removeItem(at: stagingDirectory.appendingPathComponent(name))
        }
    }
}
