import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The Story Board's statements (`capsules.shared_at`, `capsule_reactions`, `capsule_comments`), each with the notice
/// it causes in the same transaction. Who may see, react or comment — and which notice goes — is `StoryBoardService`'s.
struct StoryBoardRepository: Sendable {
    package let database: Database

    /// Marks the capsule shared and tells its owner's friends; false when it was shared already.
    package func share(_ capsule: Capsule, by owner: User, now: Date) async throws -> Bool {
        try await database.transaction { db -> Bool in
            guard try await CapsuleRepository.markShared(capsule.id, at: now, in: db) else { return false }
            let friends = try await db.raw(FriendshipRepository.friendIDs(of: owner.id)).all().map {
                try $0.decode(column: "friend", as: String.self)
            }
            for friend in friends {
                try await NotificationRepository.toAccount(
                    .capsuleShared, userID: friend, period: capsule.month.text, actor: (owner.id, owner.name), now: now, in: db)
            }
            return true
        }
    }

    package func unshare(_ capsule: Capsule) async throws {
        try await database.sql { db in try await CapsuleRepository.markShared(capsule.id, at: nil, in: db) }
    }

    /// The capsules of `month` shared by `userID` or their friends, newest share first.
    package func sharedIDs(month: CapsuleMonth, seenBy userID: String) async throws -> [String] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT c.id FROM capsules c
                WHERE c.month = \(bind: month.text) AND c.shared_at IS NOT NULL
                  AND (c.user_id = \(bind: userID) OR c.user_id IN (
                """ + FriendshipRepository.friendIDs(of: userID) + """
                    ))
                    ORDER BY c.shared_at DESC, c.id
                    """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    package struct Discussion: Sendable {
        package let owner: FriendJSON
        /// (who, which emoji)
        package let reactions: [(String, String)]
        package let comments: [(comment: SharedCapsule.Comment, authorID: String)]
    }

    /// The capsule's owner as a friend sees them, its reactions, and its comments oldest first.
    package func discussion(of capsule: Capsule, sharedAt: Date) async throws -> Discussion {
        try await database.read { db in
            let ownerRow = try await db.raw("SELECT id, name, username, avatar_version FROM users WHERE id = \(bind: capsule.userID)").first()!
            let reactions = try await db.raw("SELECT user_id, emoji FROM capsule_reactions WHERE capsule_id = \(bind: capsule.id)").all().map {
                (try $0.decode(column: "user_id", as: String.self), try $0.decode(column: "emoji", as: String.self))
            }
            let comments = try await db.raw(
                """
                SELECT k.id, k.author_id, k.text, k.created_at, u.name FROM capsule_comments k JOIN users u ON u.id = k.author_id
                WHERE k.capsule_id = \(bind: capsule.id) ORDER BY k.created_at, k.id LIMIT \(literal: Reactions.maxComments)
                """
            ).all().map { row in
                (
                    comment: SharedCapsule.Comment(
                        id: try row.decode(column: "id", as: String.self), authorName: try row.decode(column: "name", as: String.self),
                        text: try row.decode(column: "text", as: String.self),
                        createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)), canDelete: false),
                    authorID: try row.decode(column: "author_id", as: String.self)
                )
            }
            return Discussion(
                owner: try FriendshipRepository.friend(from: ownerRow, since: sharedAt.millisecondsSince1970), reactions: reactions,
                comments: comments)
        }
    }

    /// Sets `user`'s one reaction; when it is their first and `tellOwner`, the owner is told.
    /// Returns whether it was their first.
    package func react(
        _ emoji: String, on capsule: Capsule, by user: User, now: Date, tellOwner: Bool
    ) async throws -> Bool {
        try await database.transaction { db -> Bool in
            let before = try await db.raw(
                "SELECT emoji FROM capsule_reactions WHERE capsule_id = \(bind: capsule.id) AND user_id = \(bind: user.id)"
            ).first()
            try await db.raw(
                """
                INSERT INTO capsule_reactions (capsule_id, user_id, emoji, created_at)
                VALUES (\(bind: capsule.id), \(bind: user.id), \(bind: emoji), \(bind: now.millisecondsSince1970))
                ON CONFLICT (capsule_id, user_id) DO UPDATE SET emoji = \(bind: emoji)
                """
            ).run()
            guard before == nil, tellOwner else { return false }
            try await NotificationRepository.toAccount(
                .capsuleReaction, userID: capsule.userID, period: capsule.month.text, actor: (user.id, user.name), text: emoji, now: now, in: db)
            return true
        }
    }

    package func unreact(on capsule: Capsule, by userID: String) async throws {
        try await database.sql { db in
            try await db.raw("DELETE FROM capsule_reactions WHERE capsule_id = \(bind: capsule.id) AND user_id = \(bind: userID)").run()
        }
    }

    /// Adds a comment unless the capsule has `Reactions.maxComments` (409); the owner is told when `tellOwner`.
    package func comment(_ text: String, on capsule: Capsule, by user: User, now: Date, tellOwner: Bool) async throws {
        try await database.transaction { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM capsule_comments WHERE capsule_id = \(bind: capsule.id)").first()!
                .decode(column: "n", as: Int.self)
            guard count < Reactions.maxComments else { throw Reactions.tooManyComments(count, on: "capsule") }
            try await db.raw(
                """
                INSERT INTO capsule_comments (id, capsule_id, author_id, text, created_at)
                VALUES (\(bind: newID()), \(bind: capsule.id), \(bind: user.id), \(bind: text), \(bind: now.millisecondsSince1970))
                """
            ).run()
            if tellOwner {
                try await NotificationRepository.toAccount(
                    .capsuleComment, userID: capsule.userID, period: capsule.month.text, actor: (user.id, user.name), text: text, now: now, in: db)
            }
        }
    }

    /// The comment's author id, if the comment is on this capsule.
    package func commentAuthor(_ commentID: String, on capsule: Capsule) async throws -> String? {
        try await database.read { db in
            try await db.raw("SELECT author_id FROM capsule_comments WHERE id = \(bind: commentID) AND capsule_id = \(bind: capsule.id)").first()?
                .decode(column: "author_id", as: String.self)
        }
    }

    package func deleteComment(_ commentID: String) async throws {
        try await database.sql { db in try await db.raw("DELETE FROM capsule_comments WHERE id = \(bind: commentID)").run() }
    }

    package func areFriends(_ a: String, _ b: String) async throws -> Bool {
        try await database.read { db in try await FriendshipRepository.areFriends(a, b, in: db) }
    }

    /// What `userID` wrote on shared capsules, oldest first (the data export).
    package static func comments(by userID: String, in db: any SQLDatabase) async throws -> [MyData.CapsuleComment] {
        try await db.raw(
            "SELECT capsule_id, text, created_at FROM capsule_comments WHERE author_id = \(bind: userID) ORDER BY created_at, id"
        ).all().map {
            MyData.CapsuleComment(
                capsuleId: try $0.decode(column: "capsule_id", as: String.self), text: try $0.decode(column: "text", as: String.self),
                createdAt: Date(millisecondsSince1970: try $0.decode(column: "created_at", as: Int64.self)))
        }
    }
}
