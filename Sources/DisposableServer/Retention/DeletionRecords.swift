import DisposableAPI
import Foundation
import SQLKit

/// What was deleted when (RET-3): the rows `EventDeletion` writes, read back for the admin (API and panel).
struct DeletionRecords: Sendable {
    let database: any DatabaseEngine

    /// The newest records first.
    func newest(limit: Int) async throws -> [DeletionRecord] {
        try await database.sql { db in
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
