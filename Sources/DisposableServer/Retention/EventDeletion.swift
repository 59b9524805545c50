import DisposableAPI
import Foundation
import SQLKit

/// Deletes an event wholly — record, files, rows (change log included) — in an order that can be
/// interrupted at any point and run again (RET-1, RET-3).
struct EventDeletion: Sendable {
    let database: any DatabaseEngine
    let photos: PhotoRepository
    let blobs: any BlobStore
    let changes: ChangeHub
    let clock: any AppClock

    enum Reason: String {
        case expired, organizer
    }

    func delete(eventID: String, reason: Reason) async throws {
        let now = clock.now
        let databaseKind = database.kind
        // 1. The record first (no content: ids, times, counts), so it exists whatever happens next.
        let totals = try await photos.totals(eventID: eventID)
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO deletion_records (event_id, organizer_id, reason, ended_at, deleted_at, photo_count, byte_count)
                SELECT id, organizer_id, \(bind: reason.rawValue), ends_at, \(bind: now.millisecondsSince1970),
                    \(bind: totals.photos), \(bind: totals.bytes)
                FROM events WHERE id = \(bind: eventID)
                ON CONFLICT (event_id) DO NOTHING
                """
            ).run()
        }
        // 2. The files: the event is already invisible (expired or being deleted), so none is served meanwhile.
        try await blobs.delete(prefix: BlobKey.event(eventID))
        // 3. The rows; photos, guests, their tokens and the change log go with the event (ON DELETE CASCADE).
        try await database.transaction { db in
            try await PhotoRepository.cancelJobs(eventID: eventID, in: db)
            try await db.raw("DELETE FROM events WHERE id = \(bind: eventID)").run()
            if databaseKind == .postgres { try await ChangeLog.notify(eventID: eventID, in: db) }
        }
        await changes.refresh(eventID)
    }
}
