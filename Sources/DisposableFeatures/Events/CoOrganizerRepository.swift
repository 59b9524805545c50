import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `co_organizers` and `co_organizer_invitations` tables: who organizes an event beside its owner, and the
/// one-time links that make them so (kept as hashes of their tokens).
struct CoOrganizerRepository: Sendable {
    package let database: Database

    package struct Member: Sendable, Equatable {
        package let userID: String
        package let name: String
        package let addedAt: Date
    }

    /// Whether the account organizes the event beside its owner.
    package func contains(eventID: String, userID: String) async throws -> Bool {
        try await database.read { db in
            try await db.raw("SELECT 1 AS found FROM co_organizers WHERE event_id = \(bind: eventID) AND user_id = \(bind: userID)").first() != nil
        }
    }

    /// The events the account co-organizes.
    package func eventIDs(userID: String) async throws -> Set<String> {
        try await database.read { db in
            Set(
                try await db.raw("SELECT event_id FROM co_organizers WHERE user_id = \(bind: userID)").all()
                    .map { try $0.decode(column: "event_id", as: String.self) })
        }
    }

    /// The event's co-organizers, in the order they joined, with their names as they are now.
    package func list(eventID: String) async throws -> [Member] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT c.user_id, c.added_at, u.name FROM co_organizers c JOIN users u ON u.id = c.user_id
                WHERE c.event_id = \(bind: eventID) ORDER BY c.added_at, c.user_id
                """
            ).all().map { row in
                let column = ColumnReader(row)
                return Member(
                    userID: try column("user_id", as: String.self), name: try column("name", as: String.self),
                    addedAt: Date(millisecondsSince1970: try column("added_at", as: Int64.self)))
            }
        }
    }

    /// Removes a co-organizer; returns whether they were one.
    package func remove(eventID: String, userID: String) async throws -> Bool {
        try await database.sql { db in
            try await db.raw("DELETE FROM co_organizers WHERE event_id = \(bind: eventID) AND user_id = \(bind: userID) RETURNING user_id")
                .all().count > 0
        }
    }

    /// Stores a new invitation, dropping the event's expired ones; refused (false) when `limit` live ones exist.
    package func storeInvitation(tokenHash: String, eventID: String, now: Date, expires: Date, limit: Int) async throws -> Bool {
        let at = now.millisecondsSince1970
        return try await database.transaction { db in
            try await db.raw("DELETE FROM co_organizer_invitations WHERE event_id = \(bind: eventID) AND expires_at <= \(bind: at)").run()
            let live =
                try await db.raw("SELECT COUNT(*) AS n FROM co_organizer_invitations WHERE event_id = \(bind: eventID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard live < limit else { return false }
            try await db.raw(
                """
                INSERT INTO co_organizer_invitations (token_hash, event_id, created_at, expires_at)
                VALUES (\(bind: tokenHash), \(bind: eventID), \(bind: at), \(bind: expires.millisecondsSince1970))
                """
            ).run()
            return true
        }
    }

    /// The event an invitation would make its holder co-organize, without using it (the confirmation page).
    package func invitationEventID(tokenHash: String, now: Date) async throws -> String? {
        try await database.read { db in
            try await db.raw(
                """
                SELECT event_id FROM co_organizer_invitations
                WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.millisecondsSince1970)
                """
            ).first()?.decode(column: "event_id", as: String.self)
        }
    }

    /// Uses an invitation up and adds the account to its event's co-organizers; returns the event's id, or nil for an
    /// unknown, used or expired invitation. With `limit` co-organizers already, nothing changes and `LimitReached` is
    /// thrown.
    package func accept(tokenHash: String, userID: String, now: Date, limit: Int) async throws -> String? {
        let at = now.millisecondsSince1970
        return try await database.transaction { db in
            guard
                let row = try await db.raw(
                    "DELETE FROM co_organizer_invitations WHERE token_hash = \(bind: tokenHash) RETURNING event_id, expires_at"
                ).first(),
                try row.decode(column: "expires_at", as: Int64.self) > at
            else { return nil }
            let eventID = try row.decode(column: "event_id", as: String.self)
            let count =
                try await db.raw("SELECT COUNT(*) AS n FROM co_organizers WHERE event_id = \(bind: eventID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard count < limit else { throw LimitReached() }
            try await db.raw(
                """
                INSERT INTO co_organizers (event_id, user_id, added_at) VALUES (\(bind: eventID), \(bind: userID), \(bind: at))
                ON CONFLICT (event_id, user_id) DO NOTHING
                """
            ).run()
            return eventID
        }
    }

    package struct LimitReached: Error { package init() {} }
}

extension CoOrganizerRepository {
    /// The event's owner: their id and name as they are now.
    package func owner(eventID: String) async throws -> Member? {
        try await database.read { db in
            try await db.raw(
                "SELECT u.id, u.name, e.created_at FROM events e JOIN users u ON u.id = e.organizer_id WHERE e.id = \(bind: eventID)"
            ).first().map { row in
                let column = ColumnReader(row)
                return Member(
                    userID: try column("id", as: String.self), name: try column("name", as: String.self),
                    addedAt: Date(millisecondsSince1970: try column("created_at", as: Int64.self)))
            }
        }
    }
}
