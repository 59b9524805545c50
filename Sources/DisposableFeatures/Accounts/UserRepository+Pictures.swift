import DisposableCore
import DisposablePlatform
import SQLKit

extension UserRepository {
    /// The shooters of an event with an account picture — the organizer, and guests who joined signed in: uploader id
    /// (a guest's id, or the organizer's account id) → their account and its picture's version.
    package func pictureVersions(inEvent eventID: String) async throws -> [String: (account: String, version: Int)] {
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
            ).all().reduce(into: [String: (account: String, version: Int)]()) { pictures, row in
                pictures[try row.decode(column: "uploader", as: String.self)] = (
                    try row.decode(column: "account", as: String.self), try row.decode(column: "version", as: Int.self)
                )
            }
        }
    }
}
