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
        /// The admin deleted the organizer's account (ADM-4).
        case accountDeleted = "account-deleted"
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
            // The photos' bytes go back to the organizer's quota — counted from the rows this transaction removes,
            // so a second deletion running at once (another instance's sweep) gives nothing back twice.
            let freed = try await db.raw("DELETE FROM photos WHERE event_id = \(bind: eventID) RETURNING byte_size").all()
                .reduce(Int64(0)) { $0 + (try $1.decode(column: "byte_size", as: Int64.self)) }
            try await Quota.release(freed, eventID: eventID, in: db)
            try await db.raw("DELETE FROM events WHERE id = \(bind: eventID)").run()
            if databaseKind == .postgres { try await ChangeLog.notify(eventID: eventID, in: db) }
        }
        await changes.refresh(eventID)
    }
}
