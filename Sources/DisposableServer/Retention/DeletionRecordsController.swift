import DisposableAPI
import Foundation
import Hummingbird
import SQLKit

/// `GET /api/v1/admin/deletions`: what was deleted when (RET-3) — ids, times and counts, no content.
struct DeletionRecordsController {
    let database: any DatabaseEngine

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/admin/deletions", use: list)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(DeletionRecordList(items: try await Self.records(in: database, limit: 1000)))
    }

    /// The newest records first.
    static func records(in database: any DatabaseEngine, limit: Int) async throws -> [DeletionRecord] {
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
