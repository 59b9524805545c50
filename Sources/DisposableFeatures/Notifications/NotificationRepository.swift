import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Notifications in the database (SOC-3). They are written in the transaction of what they tell (a like, a
/// comment, a reveal), so nobody is told of something that did not happen, nor misses something that did.
struct NotificationRepository: Sendable {
    package let database: Database

    package typealias Cursor = GalleryCursor

    package struct Notice: Sendable {
        package let id: String
        package let kind: NotificationJSON.Kind
        /// Nil for a notice about no event (a capsule, a year of moments).
        package let event: (id: String, name: String, code: String, endsAt: Date)?
        package let period: String?
        package let photoID: String?
        package let actorName: String?
        package let text: String?
        package let createdAt: Date
        package let read: Bool
    }

    // MARK: Written with what they tell

    /// Someone reacted to a post: its author is told, unless they reacted to their own.
    package static func reacted(
        _ kind: NotificationJSON.Kind, to photo: Photo, by actorID: String, actorName: String, commentID: String? = nil, text: String? = nil,
        now: Date, in db: any SQLDatabase
    ) async throws {
        guard Reactions.tellsOwner(actorID: actorID, ownerID: photo.uploaderID) else { return }
        try await db.raw(
            """
            INSERT INTO notifications (id, recipient_id, kind, event_id, photo_id, comment_id, actor_id, actor_name, text, created_at)
            VALUES (\(bind: newID()), \(bind: photo.uploaderID), \(bind: kind.rawValue), \(bind: photo.eventID), \(bind: photo.id),
                \(bind: commentID), \(bind: actorID), \(bind: actorName), \(bind: text), \(bind: now.millisecondsSince1970))
            """
        ).run()
    }

    /// A like taken back takes its notification with it (a comment's goes with the comment's row).
    package static func likeTakenBack(photoIDs: [String], by actorID: String, in db: any SQLDatabase) async throws {
        guard !photoIDs.isEmpty else { return }
        try await db.raw(
            "DELETE FROM notifications WHERE kind = 'liked' AND actor_id = \(bind: actorID) AND photo_id IN (\(binds: photoIDs))"
        ).run()
    }

    /// Everyone in the event — its guests still in it, its owner and its co-organizers — is told the same thing.
    package static func toEveryone(_ kind: NotificationJSON.Kind, eventID: String, now: Date, in db: any SQLDatabase) async throws {
        let (kindText, at) = (kind.rawValue, now.millisecondsSince1970)
        let recipients = try await db.raw(
            """
            SELECT id FROM guests WHERE event_id = \(bind: eventID) AND left_at IS NULL
            UNION SELECT organizer_id AS id FROM events WHERE id = \(bind: eventID)
            UNION SELECT user_id AS id FROM co_organizers WHERE event_id = \(bind: eventID)
            """
        ).all().map { try $0.decode(column: "id", as: String.self) }
        for recipient in recipients {
            try await db.raw(
                """
                INSERT INTO notifications (id, recipient_id, kind, event_id, created_at)
                VALUES (\(bind: newID()), \(bind: recipient), \(bind: kindText), \(bind: eventID), \(bind: at))
                """
            ).run()
        }
    }

    /// A notice about no event, to one account: its capsule of `period` (a month), its year of moments, or what
    /// another account (`actor`) did — a friend request, a yes.
    package static func toAccount(
        _ kind: NotificationJSON.Kind, userID: String, period: String? = nil, actor: (id: String, name: String)? = nil, text: String? = nil,
        now: Date, in db: any SQLDatabase
    ) async throws {
        try await db.raw(
            """
            INSERT INTO notifications (id, recipient_id, kind, period, actor_id, actor_name, text, created_at)
            VALUES (\(bind: newID()), \(bind: userID), \(bind: kind.rawValue), \(bind: period), \(bind: actor?.id), \(bind: actor?.name),
                    \(bind: text), \(bind: now.millisecondsSince1970))
            """
        ).run()
    }

    /// A person leaving an event (removed, or erasing their data) takes what they were told there with them.
    package static func forget(recipientID: String, eventID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM notifications WHERE recipient_id = \(bind: recipientID) AND event_id = \(bind: eventID)").run()
    }

    // MARK: Read

    /// The ids a person is told under: a guest's own, or a user's and those of the guests they became.
    package func recipients(of identity: Identity) async throws -> [String] {
        switch identity {
        case .guest(let guest, _): return [guest.id]
        case .user(let user, _):
            let guests = try await database.read { db in
                try await db.raw("SELECT id FROM guests WHERE user_id = \(bind: user.id)").all().map { try $0.decode(column: "id", as: String.self) }
            }
            return [user.id] + guests
        }
    }

    /// Newest first, before `cursor`.
    package func page(for recipients: [String], before cursor: Cursor?, limit: Int) async throws -> (items: [Notice], next: Cursor?) {
        try await database.read { db in
            var sql = Self.select(recipients)
            if let cursor { sql += " AND (n.created_at, n.id) < (\(bind: cursor.time), \(bind: cursor.id))" }
            sql.appendInterpolation(unsafeRaw: " ORDER BY n.created_at DESC, n.id DESC LIMIT \(limit + 1)")
            let rows = try await db.raw(sql).all().map(Self.notice(from:))
            guard rows.count > limit else { return (rows, nil) }
            let last = rows[limit - 1]
            return (Array(rows.prefix(limit)), Cursor(time: last.createdAt.millisecondsSince1970, id: last.id))
        }
    }

    /// Oldest first, after `cursor`: what a stream has not sent yet.
    package func newer(for recipients: [String], after cursor: Cursor, limit: Int) async throws -> [Notice] {
        try await database.read { db in
            var sql = Self.select(recipients)
            sql += " AND (n.created_at, n.id) > (\(bind: cursor.time), \(bind: cursor.id))"
            sql.appendInterpolation(unsafeRaw: " ORDER BY n.created_at, n.id LIMIT \(limit)")
            return try await db.raw(sql).all().map(Self.notice(from:))
        }
    }

    /// Where a stream starts: after the newest notification there is now.
    package func latest(for recipients: [String]) async throws -> Cursor {
        try await database.read { db in
            let row = try await db.raw(
                "SELECT created_at, id FROM notifications WHERE recipient_id IN (\(binds: recipients)) ORDER BY created_at DESC, id DESC LIMIT 1"
            ).first()
            return Cursor(time: try row?.decode(column: "created_at", as: Int64.self) ?? 0, id: try row?.decode(column: "id", as: String.self) ?? "")
        }
    }

    package func unreadCount(for recipients: [String]) async throws -> Int {
        try await database.read { db in
            try await db.raw(
                "SELECT COUNT(*) AS unread FROM notifications WHERE recipient_id IN (\(binds: recipients)) AND read_at IS NULL"
            ).first()?.decode(column: "unread", as: Int.self) ?? 0
        }
    }

    /// Marks these (or all) of the person's notifications read; others' ids are ignored.
    package func markRead(_ ids: [String]?, for recipients: [String], now: Date) async throws {
        try await database.transaction { db in
            var sql = SQLQueryString(
                "UPDATE notifications SET read_at = \(bind: now.millisecondsSince1970) WHERE recipient_id IN (\(binds: recipients)) AND read_at IS NULL"
            )
            if let ids { sql += " AND id IN (\(binds: ids))" }
            try await db.raw(sql).run()
        }
    }

    package static func select(_ recipients: [String]) -> SQLQueryString {
        """
        SELECT n.*, e.name AS event_name, e.code AS event_code, e.ends_at AS event_ends_at
        FROM notifications n LEFT JOIN events e ON e.id = n.event_id
        WHERE n.recipient_id IN (\(binds: recipients))
        """
    }

    package static func notice(from row: any SQLRow) throws -> Notice {
        Notice(
            id: try row.decode(column: "id", as: String.self),
            kind: NotificationJSON.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .revealed,
            event: try row.decode(column: "event_id", as: String?.self).map { id in
                (
                    id, try row.decode(column: "event_name", as: String.self), try row.decode(column: "event_code", as: String.self),
                    Date(millisecondsSince1970: try row.decode(column: "event_ends_at", as: Int64.self))
                )
            },
            period: try row.decode(column: "period", as: String?.self),
            photoID: try row.decode(column: "photo_id", as: String?.self),
            actorName: try row.decode(column: "actor_name", as: String?.self),
            text: try row.decode(column: "text", as: String?.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            read: try row.decode(column: "read_at", as: Int64?.self) != nil)
    }

    /// What an account was told (notices name their recipient, not reference it), and what others were told of it as a
    /// friend (its name in "… wants to be your friend", its comments): the account is being erased.
    package static func erase(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM notifications WHERE recipient_id = \(bind: userID)").run()
        try await db.raw(
            """
            DELETE FROM notifications WHERE actor_id = \(bind: userID)
              AND kind IN ('friend-request', 'friend-accepted', 'capsule-shared', 'capsule-reaction', 'capsule-comment')
            """
        ).run()
    }
}
