import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `friendships` table: one row per pair, whoever asked (`FriendService` holds the rules). Each side's notice is
/// written in the same transaction as the row that causes it.
struct FriendshipRepository: Sendable {
    package let database: Database

    /// Whom a request names.
    package enum Target: Sendable {
        case username(String)
        case email(String)
    }

    /// What a request found and did.
    package enum Requested: Sendable {
        case noAccount
        case ownAccount
        /// A new request, or one already made (`again`).
        case asked(FriendJSON, again: Bool)
        /// They had asked me: we are friends now (`now`), or already were.
        case friends(FriendJSON, now: Bool)
    }

    /// Every friendship and request of `userID`'s worth showing them: mine asked by e-mail only once accepted.
    package func all(of userID: String) async throws -> [(askedByMe: Bool, accepted: Int64?, friend: FriendJSON)] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT f.requester_id, f.created_at, f.accepted_at, u.id, u.name, u.username, u.avatar_version
                FROM friendships f JOIN users u ON u.id = CASE WHEN f.requester_id = \(bind: userID) THEN f.addressee_id ELSE f.requester_id END
                WHERE (f.requester_id = \(bind: userID) AND (f.accepted_at IS NOT NULL OR f.by_email = \(bind: false)))
                   OR f.addressee_id = \(bind: userID)
                """
            ).all().map { row in
                (
                    askedByMe: try row.decode(column: "requester_id", as: String.self) == userID,
                    accepted: try row.decode(column: "accepted_at", as: Int64?.self),
                    friend: try Self.friend(from: row, since: try row.decode(column: "created_at", as: Int64.self))
                )
            }
        }
    }

    /// `user` asks `target`, in one transaction: a new request (the other is told), or, if they had asked first,
    /// a friendship (they are told).
    package func request(_ target: Target, from user: User, now: Date) async throws -> Requested {
        let condition: SQLQueryString =
            switch target {
            case .username(let name): "username = \(bind: name)"
            case .email(let email): "email = \(bind: email)"
            }
        let byEmail = if case .email = target { true } else { false }
        return try await database.transaction { db -> Requested in
            guard let row = try await db.raw("SELECT id, name, username, avatar_version FROM users WHERE " + condition).first() else {
                return .noAccount
            }
            let other = try Self.friend(from: row, since: now.millisecondsSince1970)
            guard other.id != user.id else { return .ownAccount }
            let existing = try await db.raw(
                """
                SELECT requester_id, accepted_at FROM friendships
                WHERE (requester_id = \(bind: user.id) AND addressee_id = \(bind: other.id))
                   OR (requester_id = \(bind: other.id) AND addressee_id = \(bind: user.id))
                """
            ).first()
            guard let existing else {
                try await db.raw(
                    """
                    INSERT INTO friendships (requester_id, addressee_id, created_at, by_email)
                    VALUES (\(bind: user.id), \(bind: other.id), \(bind: now.millisecondsSince1970), \(bind: byEmail))
                    """
                ).run()
                try await NotificationRepository.toAccount(.friendRequest, userID: other.id, actor: (user.id, user.name), now: now, in: db)
                return .asked(other, again: false)
            }
            if try existing.decode(column: "accepted_at", as: Int64?.self) != nil { return .friends(other, now: false) }
            guard try existing.decode(column: "requester_id", as: String.self) == other.id else { return .asked(other, again: true) }
            try await Self.accept(requester: other.id, addressee: user, now: now, in: db)
            return .friends(other, now: true)
        }
    }

    /// Accepts `otherID`'s pending request to `user`; false when there is none.
    package func accept(_ otherID: String, for user: User, now: Date) async throws -> Bool {
        try await database.transaction { db -> Bool in
            let pending = try await db.raw(
                """
                SELECT 1 AS one FROM friendships
                WHERE requester_id = \(bind: otherID) AND addressee_id = \(bind: user.id) AND accepted_at IS NULL
                """
            ).first()
            guard pending != nil else { return false }
            try await Self.accept(requester: otherID, addressee: user, now: now, in: db)
            return true
        }
    }

    /// Removes the pair's row, whoever asked; false when there is none.
    package func remove(_ otherID: String, for userID: String) async throws -> Bool {
        try await database.sql { db in
            try await db.raw(
                """
                DELETE FROM friendships
                WHERE (requester_id = \(bind: userID) AND addressee_id = \(bind: otherID))
                   OR (requester_id = \(bind: otherID) AND addressee_id = \(bind: userID))
                RETURNING requester_id
                """
            ).first() != nil
        }
    }

    /// The names of the other side of every friendship or request of `userID` (the data export).
    package static func names(of userID: String, in db: any SQLDatabase) async throws -> [String] {
        try await db.raw(
            """
            SELECT u.name FROM friendships f
            JOIN users u ON u.id = CASE WHEN f.requester_id = \(bind: userID) THEN f.addressee_id ELSE f.requester_id END
            WHERE f.requester_id = \(bind: userID) OR f.addressee_id = \(bind: userID) ORDER BY u.name
            """
        ).all().map { try $0.decode(column: "name", as: String.self) }
    }

    /// The ids of `userID`'s friends (column `friend`), as a query to run or to put inside another.
    package static func friendIDs(of userID: String) -> SQLQueryString {
        """
        SELECT CASE WHEN requester_id = \(bind: userID) THEN addressee_id ELSE requester_id END AS friend FROM friendships
        WHERE accepted_at IS NOT NULL AND (requester_id = \(bind: userID) OR addressee_id = \(bind: userID))
        """
    }

    /// Whether two accounts are friends (for what friends may see).
    package static func areFriends(_ a: String, _ b: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            SELECT 1 AS one FROM friendships WHERE accepted_at IS NOT NULL
              AND ((requester_id = \(bind: a) AND addressee_id = \(bind: b)) OR (requester_id = \(bind: b) AND addressee_id = \(bind: a)))
            """
        ).first() != nil
    }

    private static func accept(requester: String, addressee: User, now: Date, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE friendships SET accepted_at = \(bind: now.millisecondsSince1970)
            WHERE requester_id = \(bind: requester) AND addressee_id = \(bind: addressee.id)
            """
        ).run()
        try await NotificationRepository.toAccount(.friendAccepted, userID: requester, actor: (addressee.id, addressee.name), now: now, in: db)
    }

    /// A `users` row (id, name, username, avatar_version) as friends see it.
    package static func friend(from row: any SQLRow, since: Int64) throws -> FriendJSON {
        let id = try row.decode(column: "id", as: String.self)
        return FriendJSON(
            id: id, name: try row.decode(column: "name", as: String.self), username: try row.decode(column: "username", as: String?.self),
            avatarURL: try row.decode(column: "avatar_version", as: Int?.self).map { ProfileService.url(userID: id, version: $0) },
            since: Date(millisecondsSince1970: since))
    }
}
