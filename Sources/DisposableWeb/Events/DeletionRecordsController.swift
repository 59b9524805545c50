import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `GET /api/v1/admin/deletions`: what was deleted when (RET-3) — ids, times and counts, no content.
package struct DeletionRecordsController {
    package let deletion: EventDeletion

    package init(deletion: EventDeletion) {
        self.deletion = deletion
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/admin/deletions", use: list)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(DeletionRecordList(items: try await deletion.newestRecords(limit: 1000)))
    }
}
