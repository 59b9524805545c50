import Crypto
import DisposableCore
import DisposablePlatform
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit

/// OPS-5: a copy of an instance that restores whole, taken while it runs. The database first, in one consistent
/// snapshot (`VACUUM INTO`, checked with `integrity_check`); then, for each photo that snapshot lists, its files
/// from storage. A photo's original is stored before its row is committed, so every row in the snapshot has its
/// file — unless the photo was deleted in between, and then its row leaves the copy too: a backup never
/// restores a row without its file. Files are written with fsync, and the manifest last: a folder without
/// `backup.json` is an unfinished backup.
///
/// SQLite only: for PostgreSQL, `pg_dump` and the bucket's own versioning do this job (README).
public enum InstanceBackup {
    public struct Summary: Codable, Sendable {
        public var createdAt: Date
        public var version: String
        public var photos: Int
        public var files: Int
        public var bytes: Int64
        /// Photos deleted while the backup ran: left out.
        public var leftOut: Int
    }

    package static let databaseFile = "disposable.sqlite"
    package static let manifestFile = "backup.json"

    public static func backUp(_ data: InstanceData, to folder: String, logger: Logger) async throws -> Summary {
        guard case .sqlite = data.database else {
            throw ConfigurationError("disposable backup copies SQLite instances; for PostgreSQL use pg_dump and your bucket's versioning.")
        }
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        if FileManager.default.fileExists(atPath: folderURL.appendingPathComponent(manifestFile).path)
            || FileManager.default.fileExists(atPath: folderURL.appendingPathComponent(databaseFile).path)
        {
            throw ConfigurationError("\(folder) already holds a backup: back up into a new folder.")
        }
        try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: true)
        let snapshot = folderURL.appendingPathComponent(databaseFile).path

        // 1. The database, as one transaction sees it, while the server keeps writing.
        try await withDatabase(data.database, logger: logger) { database in
            try await database.sql { db in try await db.raw("VACUUM INTO \(bind: snapshot)").run() }
        }
        try syncFile(snapshot)

        // 2. The files of the photos it lists, from wherever the instance keeps them, as stored: encrypted ones stay
        // encrypted (the copied database names their key's check value; the same key opens them after a restore).
        let blobs = try makeStoredBlobStore(data)
        let media = folderURL.appendingPathComponent("media").path
        let summary = try await withDatabase(.sqlite(path: snapshot), logger: logger) { copy in
            var summary = Summary(createdAt: Date(), version: disposableVersion, photos: 0, files: 0, bytes: 0, leftOut: 0)
            try await checkIntegrity(copy)
            let photos = try await copy.sql { db in
                try await db.raw("SELECT id, event_id, status, preview_pending FROM photos").all().map {
                    (
                        id: try $0.decode(column: "id", as: String.self), event: try $0.decode(column: "event_id", as: String.self),
                        ready: try $0.decode(column: "status", as: String.self) == "ready",
                        previewPending: try $0.decode(column: "preview_pending", as: Bool.self)
                    )
                }
            }
            var gone: [String] = []
            for photo in photos {
                var keys = [BlobKey.original(photo.event, photo.id)]
                if photo.ready { keys.append(BlobKey.thumbnail(photo.event, photo.id)) }
                // Shown with its thumbnail alone, its preview still queued (the job is in the copied database).
                if photo.ready && !photo.previewPending { keys.append(BlobKey.preview(photo.event, photo.id)) }
                var complete = true
                for key in keys {
                    guard let size = try await copyBlob(key, from: blobs, to: media + "/" + key) else {
                        complete = false
                        break
                    }
                    summary.files += 1
                    summary.bytes += size
                }
                if complete { summary.photos += 1 } else { gone.append(photo.id) }
            }
            // Deleted since the snapshot: their rows go too.
            for id in gone {
                try await copy.transaction { db in
                    try await db.raw("DELETE FROM jobs WHERE subject_id = \(bind: id)").run()
                    try await db.raw("DELETE FROM photos WHERE id = \(bind: id)").run()
                }
            }
            summary.leftOut = gone.count
            try await copy.sql { db in try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
            return summary
        }
        try syncFile(snapshot)

        // 3. The manifest, last: its presence says the backup is whole.
        let manifest = try JSONEncoder.sorted.encode(summary)
        try DurableFiles.write(manifest, to: folderURL.appendingPathComponent(manifestFile).path)
        try DurableFiles.syncDirectory(of: folderURL.appendingPathComponent(manifestFile).path)
        logger.info("Backed up \(summary.photos) photos (\(summary.files) files, \(summary.bytes) bytes) to \(folder).")
        return summary
    }

    /// Puts a backup back into an empty instance: the database file, then every file into the configured storage.
    public static func restore(from folder: String, into data: InstanceData, logger: Logger) async throws -> Summary {
        guard case .sqlite(let path) = data.database else {
            throw ConfigurationError("disposable restore fills SQLite instances; for PostgreSQL use pg_restore.")
        }
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        guard let manifest = FileManager.default.contents(atPath: folderURL.appendingPathComponent(manifestFile).path),
            let summary = try? JSONDecoder.api.decode(Summary.self, from: manifest)
        else {
            throw ConfigurationError("\(folder) holds no finished backup (backup.json is missing).")
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError("\(path) exists: restore into a new data folder, so that nothing is overwritten.")
        }
        try await withDatabase(.sqlite(path: folderURL.appendingPathComponent(databaseFile).path), logger: logger) { try await checkIntegrity($0) }

        // Files first, as they were stored: the database that names them arrives last.
        let blobs = try makeStoredBlobStore(data)
        let staging = data.stagingDirectory
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let media = folderURL.appendingPathComponent("media").path
        let files = FileManager.default.enumerator(atPath: media)?.compactMap { $0 as? String } ?? []
        for key in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: media + "/" + key, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            // Through a copy in staging: a store may move the file it is given.
            let copy = staging.appendingPathComponent(UUID().uuidString)
            try FileManager.default.copyItem(atPath: media + "/" + key, toPath: copy.path)
            try syncFile(copy.path)
            defer { try? FileManager.default.removeItem(at: copy) }
            let (sha256, size) = try digest(of: copy.path)
            try await blobs.put(file: copy, key: key, sha256: sha256, size: size)
        }
        try DurableFiles.makeParentDirectories(of: path)
        let incoming = path + ".restoring"
        try? FileManager.default.removeItem(atPath: incoming)
        try FileManager.default.copyItem(atPath: folderURL.appendingPathComponent(databaseFile).path, toPath: incoming)
        try syncFile(incoming)
        try DurableFiles.rename(incoming, to: path)
        logger.info("Restored \(summary.photos) photos from the backup of \(summary.createdAt).")
        return summary
    }

    private static func checkIntegrity(_ database: any DatabaseEngine) async throws {
        let result = try await database.sql { db in
            try await db.raw("PRAGMA integrity_check").first()?.decode(column: "integrity_check", as: String.self)
        }
        guard result == "ok" else { throw ConfigurationError("The database copy is damaged: \(result ?? "no answer").") }
    }

    /// Copies one blob into a new file, synced; nil when the store has no such blob.
    private static func copyBlob(_ key: String, from blobs: any BlobStore, to path: String) async throws -> Int64? {
        try DurableFiles.makeParentDirectories(of: path)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try DurableFiles.check(fd, "open")
        var size: Int64 = 0
        do {
            try await blobs.read(key: key, range: nil) { chunk in
                size += Int64(chunk.readableBytes)
                try chunk.withUnsafeReadableBytes { try DurableFiles.writeAll(fd, $0) }
            }
            try DurableFiles.check(fsync(fd), "fsync")
            close(fd)
            return size
        } catch {
            close(fd)
            unlink(path)
            if await (try? blobs.contents(key: key)) == nil { return nil }  // gone: deleted since the snapshot
            throw error
        }
    }

    /// The file's SHA-256 (hex) and size: stores that sign or check bodies need them.
    private static func digest(of path: String) throws -> (String, Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DurableFiles.error("open") }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), size)
    }

    private static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try DurableFiles.check(fd, "open")
        defer { close(fd) }
        try DurableFiles.check(fsync(fd), "fsync")
    }
}
