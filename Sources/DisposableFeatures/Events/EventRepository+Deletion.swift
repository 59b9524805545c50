import DisposableCore
import DisposablePlatform
import SQLKit

extension EventRepository {
    /// An event's rows, in one transaction: its queued renders, its photos (their bytes back to the organizer's
    /// quota — counted from the rows this transaction removes, so a second deletion running at once gives nothing
    /// back twice) and the event; guests, their tokens and the change log go with it (ON DELETE CASCADE).
    package func deleteWithPhotos(eventID: String) async throws {
        let kind = database.kind
        try await database.transaction { db in
            try await PhotoRepository.cancelJobs(eventID: eventID, in: db)
            let freed = try await PhotoRepository.deleteAll(eventID: eventID, in: db)
            try await UserRepository.releaseQuota(freed, eventID: eventID, in: db)
            try await db.raw("DELETE FROM events WHERE id = \(bind: eventID)").run()
            if kind == .postgres { try await ChangeLogRepository.notify(eventID: eventID, in: db) }
        }
    }
}
