import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// What was deleted when (RET-3): a record written before an event's files and rows go, read back for the admin
/// (API and panel); and which events are due to go.
struct DeletionRecordRepository: Sendable {
    package let database: Database

    /// The record of `eventID`'s deletion (no content: ids, times, counts); kept if one exists.
    package func record(eventID: String, reason: String, now: Date, photos: Int, bytes: Int64) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO deletion_records (event_id, organizer_id, reason, ended_at, deleted_at, photo_count, byte_count)
                SELECT id, organizer_id, \(bind: reason), ends_at, \(bind: now.millisecondsSince1970), \(bind: photos), \(bind: bytes)
                FROM events WHERE id = \(bind: eventID)
                ON CONFLICT (event_id) DO NOTHING
                """
            ).run()
        }
    }

    /// Events ended at or before `cutoff`, and those whose deletion was begun (a crash cut it short).
    package func due(endedBy cutoff: Date) async throws -> [String] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT id FROM events WHERE ends_at <= \(bind: cutoff.millisecondsSince1970)
                    OR id IN (SELECT event_id FROM deletion_records)
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// The newest records first.
    package func newest(limit: Int) async throws -> [DeletionRecord] {
        try await database.read { db in
            try await db.raw("SELECT * FROM deletion_records ORDER BY deleted_at DESC, event_id LIMIT \(bind: limit)").all().map { row in
                DeletionRecord(
                    eventId: try row.decode(column: "event_id", as: String.self),
                    organizerId: try row.decode(column: "organizer_id", as: String.self),
                    reason: try row.decode(column: "reason", as: String.self),
                    endedAt: Date(millisecondsSince1970: try row.decode(column: "ended_at", as: Int64.self)),
                    deletedAt: Date(millisecondsSince1970: try row.decode(column: "deleted_at", as: Int64.self)),
                    photoCount: try row.decode(column: "photo_count", as: Int.self),
                    byteCount: try row.decode(column: "byte_count", as: Int64.self))
            }
        }
    }
}
