import SQLKit

/// Account pictures beside an event's photos (SOC-5): which of its shooters — the organizer, and guests who
/// joined while signed in — have a picture, and its address. Photos name their shooter per event, so the
/// pictures are looked up per event, in one small query remembered like event rows are (`RecentReads`).
struct ShooterPictures: Sendable {
    let database: any DatabaseEngine
    let recent: RecentAnswers<[String: String]>

    /// Uploader id (a guest's id, or the organizer's account id) → the picture's address; only those with one.
    func inEvent(_ eventID: String) async throws -> [String: String] {
        try await recent.answer(for: eventID) { [database] in
            try await database.read { db in
                try await db.raw(
                    """
                    SELECT g.id AS uploader, u.id AS account, u.avatar_version AS version
                    FROM guests g JOIN users u ON u.id = g.user_id
                    WHERE g.event_id = \(bind: eventID) AND u.avatar_version IS NOT NULL
                    UNION ALL
                    SELECT u.id, u.id, u.avatar_version FROM events e JOIN users u ON u.id = e.organizer_id
                    WHERE e.id = \(bind: eventID) AND u.avatar_version IS NOT NULL
                    """
                ).all().reduce(into: [String: String]()) { pictures, row in
                    pictures[try row.decode(column: "uploader", as: String.self)] = ProfileService.url(
                        userID: try row.decode(column: "account", as: String.self), version: try row.decode(column: "version", as: Int.self))
                }
            }
        } ?? [:]
    }
}
