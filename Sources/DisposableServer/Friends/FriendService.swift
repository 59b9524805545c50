import DisposableAPI
import Foundation
import SQLKit

/// Friends (the capsule seed's stories 10–14, 46): ask an account by its username or e-mail address, accept or
/// decline, take back, remove. One row per pair whoever asked; each side is told (friend-request, friend-accepted).
/// A friend sees my name, username and picture, never my e-mail address.
struct FriendService: Sendable {
    let database: any DatabaseEngine
    let limiter: RateLimiter
    let bell: StreamWaker
    let clock: any AppClock

    /// My friends, the requests waiting for my answer and mine waiting for theirs; by name.
    func list(for user: User) async throws -> FriendList {
        let rows = try await database.read { db in
            try await db.raw(
                """
                SELECT f.requester_id, f.created_at, f.accepted_at, u.id, u.name, u.username, u.avatar_version
                FROM friendships f JOIN users u ON u.id = CASE WHEN f.requester_id = \(bind: user.id) THEN f.addressee_id ELSE f.requester_id END
                WHERE (f.requester_id = \(bind: user.id) AND (f.accepted_at IS NOT NULL OR f.by_email = \(bind: false)))
                   OR f.addressee_id = \(bind: user.id)
                """
            ).all().map { row in
                (
                    askedByMe: try row.decode(column: "requester_id", as: String.self) == user.id,
                    accepted: try row.decode(column: "accepted_at", as: Int64?.self),
                    friend: try Self.friend(from: row, since: try row.decode(column: "created_at", as: Int64.self))
                )
            }
        }
        let byName = { (a: FriendJSON, b: FriendJSON) in (a.name.lowercased(), a.id) < (b.name.lowercased(), b.id) }
        return FriendList(
            friends: rows.compactMap { row in row.accepted.map { at in Self.with(row.friend, since: at) } }.sorted(by: byName),
            incoming: rows.filter { $0.accepted == nil && !$0.askedByMe }.map(\.friend).sorted(by: byName),
            outgoing: rows.filter { $0.accepted == nil && $0.askedByMe }.map(\.friend).sorted(by: byName))
    }

    /// Asks the account with this username or e-mail address; if it had asked me already, we are friends now.
    /// By e-mail address the answer names nobody and is the same whether or not an account has it:
    /// a username is public, an address is not. Such a request is not in my outgoing list until it is accepted.
    func request(_ input: FriendRequest, from user: User) async throws -> FriendRequestResult {
        let target: SQLQueryString
        let byEmail: Bool
        switch (input.username, input.email) {
        case (let username?, nil):
            guard let name = try Username.validate(username) else { throw Self.sayWho }
            (target, byEmail) = ("username = \(bind: name)", false)
        case (nil, let email?):
            (target, byEmail) = ("email = \(bind: try Credentials.email(email))", true)
        default:
            throw Self.sayWho
        }
        _ = try await limiter.take([.target(user.id)])
        let now = clock.now
        let unnamed = FriendRequestResult(status: "pending", friend: nil)
        let result = try await database.transaction { db -> FriendRequestResult in
            guard let row = try await db.raw("SELECT id, name, username, avatar_version FROM users WHERE " + target).first() else {
                if byEmail { return unnamed }
                throw Problem.notFound("No account here has this username.")
            }
            let other = try Self.friend(from: row, since: now.millisecondsSince1970)
            guard other.id != user.id else { throw Problem.invalidField("username", "You cannot be your own friend.") }
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
                return byEmail ? unnamed : FriendRequestResult(status: "pending", friend: other)
            }
            // Already friends, or they asked me: I know them already, so naming them reveals nothing.
            if try existing.decode(column: "accepted_at", as: Int64?.self) != nil {
                return FriendRequestResult(status: "accepted", friend: other)
            }
            guard try existing.decode(column: "requester_id", as: String.self) == other.id else {
                return byEmail ? unnamed : FriendRequestResult(status: "pending", friend: other)  // asked again: once is enough
            }
            try await Self.accept(requester: other.id, addressee: user, now: now, in: db)
            return FriendRequestResult(status: "accepted", friend: Self.with(other, since: now.millisecondsSince1970))
        }
        await bell.changed(NotificationService.anyone)
        return result
    }

    /// Says yes to `otherID`'s request.
    func accept(_ otherID: String, for user: User) async throws -> FriendJSON {
        let now = clock.now
        let accepted = try await database.transaction { db -> Bool in
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
        guard accepted, let friend = try await list(for: user).friends.first(where: { $0.id == otherID }) else {
            throw Problem.notFound("There is no friend request from this account.")
        }
        await bell.changed(NotificationService.anyone)
        return friend
    }

    /// Declines their request, takes mine back, or ends a friendship — whichever there is.
    func remove(_ otherID: String, for user: User) async throws {
        let removed = try await database.sql { db in
            try await db.raw(
                """
                DELETE FROM friendships
                WHERE (requester_id = \(bind: user.id) AND addressee_id = \(bind: otherID))
                   OR (requester_id = \(bind: otherID) AND addressee_id = \(bind: user.id))
                RETURNING requester_id
                """
            ).first() != nil
        }
        guard removed else { throw Problem.notFound("There is no friend or request with this account.") }
    }

    /// The names of the other side of every friendship or request of `userID` (the data export).
    static func names(of userID: String, in database: any DatabaseEngine) async throws -> [String] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT u.name FROM friendships f
                JOIN users u ON u.id = CASE WHEN f.requester_id = \(bind: userID) THEN f.addressee_id ELSE f.requester_id END
                WHERE f.requester_id = \(bind: userID) OR f.addressee_id = \(bind: userID) ORDER BY u.name
                """
            ).all().map { try $0.decode(column: "name", as: String.self) }
        }
    }

    /// The ids of `userID`'s friends (column `friend`), as a query to run or to put inside another.
    static func friendIDs(of userID: String) -> SQLQueryString {
        """
        SELECT CASE WHEN requester_id = \(bind: userID) THEN addressee_id ELSE requester_id END AS friend FROM friendships
        WHERE accepted_at IS NOT NULL AND (requester_id = \(bind: userID) OR addressee_id = \(bind: userID))
        """
    }

    /// Whether two accounts are friends (for what friends may see).
    static func areFriends(_ a: String, _ b: String, in db: any SQLDatabase) async throws -> Bool {
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

    private static let sayWho = Problem.invalidField("username", "Say who to ask: a username, or an e-mail address.")

    /// A `users` row (id, name, username, avatar_version) as friends see it.
    static func friend(from row: any SQLRow, since: Int64) throws -> FriendJSON {
        let id = try row.decode(column: "id", as: String.self)
        return FriendJSON(
            id: id, name: try row.decode(column: "name", as: String.self), username: try row.decode(column: "username", as: String?.self),
            avatarURL: try row.decode(column: "avatar_version", as: Int?.self).map { ProfileService.url(userID: id, version: $0) },
            since: Date(millisecondsSince1970: since))
    }

    private static func with(_ friend: FriendJSON, since: Int64) -> FriendJSON {
        var friend = friend
        friend.since = Date(millisecondsSince1970: since)
        return friend
    }
}
