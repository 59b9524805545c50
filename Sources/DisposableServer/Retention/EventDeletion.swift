import Foundation
import SQLKit

/// Deletes an event wholly — record, files, rows (change log included) — in an order that can be
/// interrupted at any point and run again (RET-1, RET-3).
struct EventDeletion {
    let services: AppServices

    enum Reason: String {
        case expired, organizer
    }

    func delete(eventID: String, reason: Reason) async throws {
        let now = services.clock.now
        let databaseKind = services.database.kind
        // 1. The record first (no content: ids, times, counts), so it exists whatever happens next.
        try await services.database.sql { db in
            try await db.raw(
                """
                INSERT INTO deletion_records (event_id, organizer_id, reason, ended_at, deleted_at, photo_count, byte_count)
                SELECT e.id, e.organizer_id, \(bind: reason.rawValue), e.ends_at, \(bind: now.millisecondsSince1970),
                    (SELECT COUNT(*) FROM photos p WHERE p.event_id = e.id AND p.status <> 'failed'),
                    (SELECT CAST(COALESCE(SUM(p.byte_size + p.derivative_bytes), 0) AS BIGINT) FROM photos p WHERE p.event_id = e.id)
                FROM events e WHERE e.id = \(bind: eventID)
                ON CONFLICT (event_id) DO NOTHING
                """
            ).run()
        }
        // 2. The files: the event is already invisible (expired or being deleted), so none is served meanwhile.
        try await services.blobs.delete(prefix: BlobKey.event(eventID))
        // 3. The rows; photos, guests, their tokens and the change log go with the event (ON DELETE CASCADE).
        try await services.database.transaction { db in
            try await db.raw("DELETE FROM jobs WHERE subject_id IN (SELECT id FROM photos WHERE event_id = \(bind: eventID))").run()
            try await db.raw("DELETE FROM events WHERE id = \(bind: eventID)").run()
            if databaseKind == .postgres {
                try await db.raw("SELECT pg_notify(\(bind: ChangeLog.channel), \(bind: eventID))").run()
            }
        }
        await services.changes.refresh(eventID)
    }
}
