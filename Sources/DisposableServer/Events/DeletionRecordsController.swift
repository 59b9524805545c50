import DisposableAPI
import Foundation
import Hummingbird

/// `GET /api/v1/admin/deletions`: what was deleted when (RET-3) — ids, times and counts, no content.
struct DeletionRecordsController {
    let deletion: EventDeletion

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/admin/deletions", use: list)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(DeletionRecordList(items: try await deletion.newestRecords(limit: 1000)))
    }
}
