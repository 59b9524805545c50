import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `pending_writes` table (`PendingWrites` says why): one row per write to the store that a row will vouch for.
struct PendingWriteRepository: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// A write begun and not settled: an event photo's (`prefix` nil) or a library revision's files.
    package struct Write: Sendable {
        package let id: String
        package let eventID: String
        package let prefix: String?
        /// An event photo's row exists.
        package let recorded: Bool

        package init(id: String, eventID: String, prefix: String?, recorded: Bool) {
            self.id = id
            self.eventID = eventID
            self.prefix = prefix
            self.recorded = recorded
        }
    }

    /// Records that files of an event photo are about to be written.
    package func begin(eventID: String, photoID: String, instance: String, now: Date) async throws {
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

    package func begin(_ write: LibraryFiles, startedAt: Date, instance: String) async throws {
        try await database.sql { db in try await Self.begin(write, startedAt: startedAt, instance: instance, in: db) }
    }

    /// The same inside a transaction; `startedAt` 0 makes it due for removal at the next reconciliation (files to
    /// delete after the transaction commits).
    package static func begin(_ write: LibraryFiles, startedAt: Date, instance: String, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO pending_writes (photo_id, event_id, instance, started_at, blob_prefix)
            VALUES (\(bind: write.writeID), '', \(bind: instance), \(bind: startedAt.millisecondsSince1970), \(bind: write.prefix))
            ON CONFLICT (photo_id) DO NOTHING
            """
        ).run()
    }

    /// In the transaction that records (or gives up) the photo: its files are accounted for.
    package static func end(photoID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM pending_writes WHERE photo_id = \(bind: photoID)").run()
    }

    package func end(photoID: String) async throws {
        try await database.sql { db in try await Self.end(photoID: photoID, in: db) }
    }

    /// Writes begun before `before`, and (`atStart`) every write `instance` began.
    package func unsettled(before: Date, atStart: Bool, instance: String) async throws -> [Write] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT w.photo_id, w.event_id, w.blob_prefix, p.id AS recorded FROM pending_writes w LEFT JOIN photos p ON p.id = w.photo_id
                WHERE w.started_at < \(bind: before.millisecondsSince1970) OR (\(bind: atStart) AND w.instance = \(bind: instance))
                """
            ).all().map {
                Write(
                    id: try $0.decode(column: "photo_id", as: String.self), eventID: try $0.decode(column: "event_id", as: String.self),
                    prefix: try $0.decode(column: "blob_prefix", as: String?.self), recorded: try $0.decodeNil(column: "recorded") == false)
            }
        }
    }

    /// Whether a library row vouches for these files.
    package func isRecorded(_ files: LibraryFiles) async throws -> Bool {
        try await database.read { db in try await LibraryRepository.isRecorded(files, in: db) }
    }

    /// An event photo's files to remove after the caller's transaction (which deletes its row) commits: a write due
    /// at the next reconciliation, if the caller does not remove them first.
    package static func beginRemoval(eventID: String, photoID: String, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO pending_writes (photo_id, event_id, instance, started_at)
            VALUES (\(bind: photoID), \(bind: eventID), '', 0)
            ON CONFLICT (photo_id) DO NOTHING
            """
        ).run()
    }
}
