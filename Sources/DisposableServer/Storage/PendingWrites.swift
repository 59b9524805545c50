import DisposableAPI
import Foundation
import Logging
import SQLKit

/// Writes to the store that a database row will vouch for, recorded before they start (REL-1).
///
/// A photo's original is stored before its row is committed, so a crash in between leaves files without a
/// row — never a row without its file. Each such write is recorded here first and forgotten in the
/// transaction that commits the row; a record still here after a while names files nobody will ever
/// reference, and `reconcile` removes them. No listing of the whole store is ever needed.
struct PendingWrites: Sendable {
    let database: any DatabaseEngine
    let blobs: any BlobStore
    let clock: any AppClock
    let logger: Logger
    /// Who writes: host and port, the same again when this instance restarts, never shared by two running ones.
    let instance: String
    /// A write older than this is over, one way or another (an upload is stored and recorded in seconds).
    static let settleTime: TimeInterval = 10 * 60

    /// Records that files of this photo are about to be written.
    func begin(eventID: String, photoID: String) async throws {
        let now = clock.now
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO pending_writes (photo_id, event_id, instance, started_at)
                VALUES (\(bind: photoID), \(bind: eventID), \(bind: instance), \(bind: now.millisecondsSince1970))
                ON CONFLICT (photo_id) DO NOTHING
                """
            ).run()
        }
    }

    /// Records that files of a library asset's revision (`LibraryFiles`) are about to be written.
    func begin(_ write: LibraryFiles) async throws {
        let now = clock.now
        try await database.sql { db in try await Self.begin(write, startedAt: now, instance: instance, in: db) }
    }

    /// The same inside a transaction; `startedAt` 0 makes it due for removal at the next reconciliation (files to
    /// delete after the transaction commits).
    static func begin(_ write: LibraryFiles, startedAt: Date, instance: String, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO pending_writes (photo_id, event_id, instance, started_at, blob_prefix)
            VALUES (\(bind: write.writeID), '', \(bind: instance), \(bind: startedAt.millisecondsSince1970), \(bind: write.prefix))
            ON CONFLICT (photo_id) DO NOTHING
            """
        ).run()
    }

    /// Removes a library write's files and forgets it.
    func abandon(_ write: LibraryFiles) async throws {
        try await blobs.delete(prefix: write.prefix)
        try await database.sql { db in try await Self.end(photoID: write.writeID, in: db) }
    }

    /// In the transaction that records (or gives up) the photo: its files are accounted for.
    static func end(photoID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM pending_writes WHERE photo_id = \(bind: photoID)").run()
    }

    /// Ends a write whose photo will not be recorded, after its files are removed.
    func abandon(eventID: String, photoID: String) async throws {
        try await blobs.delete(prefix: BlobKey.photo(eventID, photoID))
        try await database.sql { db in try await Self.end(photoID: photoID, in: db) }
    }

    /// Removes the files of writes that never got their row: those older than `settleTime` (other instances
    /// may be writing right now), and at start-up (`atStart`) every write this instance began before it stopped.
    func reconcile(atStart: Bool) async throws {
        let before = (clock.now - Self.settleTime).millisecondsSince1970
        let stale = try await database.sql { db in
            try await db.raw(
                """
                SELECT w.photo_id, w.event_id, w.blob_prefix, p.id AS recorded FROM pending_writes w LEFT JOIN photos p ON p.id = w.photo_id
                WHERE w.started_at < \(bind: before) OR (\(bind: atStart) AND w.instance = \(bind: instance))
                """
            ).all().map {
                (
                    photo: try $0.decode(column: "photo_id", as: String.self), event: try $0.decode(column: "event_id", as: String.self),
                    prefix: try $0.decode(column: "blob_prefix", as: String?.self),
                    recorded: try $0.decodeNil(column: "recorded") == false
                )
            }
        }
        var removed = 0
        for write in stale {
            if let prefix = write.prefix {
                let files = LibraryFiles(writeID: write.photo, prefix: prefix)
                if try await files.isRecorded(in: database) {
                    try await database.sql { db in try await Self.end(photoID: write.photo, in: db) }
                } else {
                    try await abandon(files)
                    removed += 1
                }
            } else if write.recorded {
                try await database.sql { db in try await Self.end(photoID: write.photo, in: db) }
            } else {
                try await abandon(eventID: write.event, photoID: write.photo)
                removed += 1
            }
        }
        if removed > 0 { logger.notice("Removed the files of \(removed) uploads that an interrupted run never recorded.") }
    }
}
