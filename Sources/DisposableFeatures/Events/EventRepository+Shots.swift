import DisposableCore
import DisposablePlatform
import SQLKit

extension EventRepository {
    /// The organizer's next shot number (they have no limit), in the transaction that records the photo.
    package static func takeOrganizerShot(eventID: String, in db: any SQLDatabase) async throws -> Int? {
        try await db.raw("UPDATE events SET organizer_shots = organizer_shots + 1 WHERE id = \(bind: eventID) RETURNING organizer_shots")
            .first()?.decode(column: "organizer_shots", as: Int.self)
    }
}
