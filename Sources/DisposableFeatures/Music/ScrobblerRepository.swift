import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The scrobbler each account links (the `scrobblers` table's owner): one at most.
struct ScrobblerRepository: Sendable {
    package let database: Database

    /// Links `url` for the account, replacing the one linked before.
    package func replace(userID: String, url: URL, apiKey: String, at now: Date) async throws {
        try await database.transaction { db in
            try await db.raw("DELETE FROM scrobblers WHERE user_id = \(bind: userID)").run()
            try await db.raw(
                """
                INSERT INTO scrobblers (user_id, kind, url, api_key, linked_at)
                VALUES (\(bind: userID), 'maloja', \(bind: url.absoluteString), \(bind: apiKey), \(bind: now.millisecondsSince1970))
                """
            ).run()
        }
    }

    package func remove(userID: String) async throws {
        try await database.sql { db in try await db.raw("DELETE FROM scrobblers WHERE user_id = \(bind: userID)").run() }
    }

    package func find(userID: String) async throws -> (kind: String, url: URL, linkedAt: Date)? {
        try await database.read { db in
            guard let row = try await db.raw("SELECT kind, url, linked_at FROM scrobblers WHERE user_id = \(bind: userID)").first(),
                let url = URL(string: try row.decode(column: "url", as: String.self))
            else { return nil }
            return (
                try row.decode(column: "kind", as: String.self), url,
                Date(millisecondsSince1970: try row.decode(column: "linked_at", as: Int64.self))
            )
        }
    }
}
