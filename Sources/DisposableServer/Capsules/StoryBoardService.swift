import DisposableAPI
import Foundation
import Hummingbird
import SQLKit

/// The Story Board (the capsule seed's stories 20–23, 34, 47–48): I share last month's capsule; my friends see it
/// this month, enlarge its photos, react (one emoji each) and comment; the board starts again with each month. Only
/// its owner and their friends ever see a shared capsule — every read checks the friendship as it is now.
struct StoryBoardService: Sendable {
    let database: any DatabaseEngine
    let capsules: CapsuleService
    let blobs: any BlobStore
    let limiter: RateLimiter
    let clock: any AppClock

    static let reactions = ["❤️", "😂", "😮", "😢", "👏", "🔥"]

    // MARK: Sharing

    /// Puts my capsule of `month` on the board (last month's only), and tells my friends.
    func share(_ month: String, for user: User) async throws -> CapsuleJSON {
        let capsule = try await capsules.find(month, for: user)
        let boardMonth = try await self.boardMonth(for: user)
        guard capsule.month == boardMonth else {
            throw Problem.conflict("not-this-month", "Only last month's capsule goes on the Story Board (\(boardMonth.text)).")
        }
        let now = clock.now
        let told = try await database.transaction { db -> Bool in
            guard
                try await db.raw(
                    "UPDATE capsules SET shared_at = \(bind: now.millisecondsSince1970) WHERE id = \(bind: capsule.id) AND shared_at IS NULL RETURNING id"
                ).first() != nil
            else { return false }
            let friends = try await db.raw(FriendService.friendIDs(of: user.id)).all().map { try $0.decode(column: "friend", as: String.self) }
            for friend in friends {
                try await NotificationRepository.toAccount(
                    .capsuleShared, userID: friend, period: capsule.month.text, actor: (user.id, user.name), now: now, in: db)
            }
            return true
        }
        if told { await capsules.bell.changed(NotificationService.anyone) }
        return try await capsules.capsule(month, for: user)
    }

    /// Takes it off the board (its reactions and comments stay with it, should it go back).
    func unshare(_ month: String, for user: User) async throws {
        let capsule = try await capsules.find(month, for: user)
        try await database.sql { db in try await db.raw("UPDATE capsules SET shared_at = NULL WHERE id = \(bind: capsule.id)").run() }
    }

    // MARK: The board

    /// This month's board as `user` sees it: their friends' shared capsules of last month, and theirs.
    func board(for user: User) async throws -> StoryBoard {
        let month = try await boardMonth(for: user)
        let ids = try await database.read { db in
            try await db.raw(
                """
                SELECT c.id FROM capsules c
                WHERE c.month = \(bind: month.text) AND c.shared_at IS NOT NULL
                  AND (c.user_id = \(bind: user.id) OR c.user_id IN (
                """ + FriendService.friendIDs(of: user.id) + """
                    ))
                    ORDER BY c.shared_at DESC, c.id
                    """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
        var items: [SharedCapsule] = []
        for id in ids { items.append(try await shared(id, for: user)) }
        return StoryBoard(month: month.text, items: items)
    }

    /// One shared capsule, if `user` may see it (its owner, or a friend of its owner); 404 otherwise.
    func shared(_ capsuleID: String, for user: User) async throws -> SharedCapsule {
        let capsule = try await visible(capsuleID, to: user)
        let assets = try await capsules.rows.assets(capsule.assetIDs, userID: capsule.userID)
        let (owner, reactions, comments) = try await database.read { db in
            let ownerRow = try await db.raw("SELECT id, name, username, avatar_version FROM users WHERE id = \(bind: capsule.userID)").first()!
            let reactions = try await db.raw("SELECT user_id, emoji FROM capsule_reactions WHERE capsule_id = \(bind: capsule.id)").all().map {
                (try $0.decode(column: "user_id", as: String.self), try $0.decode(column: "emoji", as: String.self))
            }
            let comments = try await db.raw(
                """
                SELECT k.id, k.author_id, k.text, k.created_at, u.name FROM capsule_comments k JOIN users u ON u.id = k.author_id
                WHERE k.capsule_id = \(bind: capsule.id) ORDER BY k.created_at, k.id LIMIT 500
                """
            ).all().map { row in
                SharedCapsule.Comment(
                    id: try row.decode(column: "id", as: String.self), authorName: try row.decode(column: "name", as: String.self),
                    text: try row.decode(column: "text", as: String.self),
                    createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
                    canDelete: try row.decode(column: "author_id", as: String.self) == user.id || capsule.userID == user.id)
            }
            return (try FriendService.friend(from: ownerRow, since: capsule.sharedAt!.millisecondsSince1970), reactions, comments)
        }
        let base = "/api/v1/board/\(capsule.id)/photos"
        return SharedCapsule(
            id: capsule.id, month: capsule.month.text, owner: owner, mine: capsule.userID == user.id, sharedAt: capsule.sharedAt!,
            quote: capsule.quote, song: capsule.songTitle.map { .init(title: $0, artist: capsule.songArtist) },
            clipURL: capsule.clipVersion.map { "/api/v1/board/\(capsule.id)/clip.m4a?v=\($0)" },
            photos: assets.map {
                .init(
                    id: $0.id, thumbnail: "\(base)/\($0.id)/thumbnail?r=\($0.fileRevision)", preview: "\(base)/\($0.id)/preview?r=\($0.fileRevision)")
            },
            reactions: Dictionary(reactions.map { ($0.1, 1) }, uniquingKeysWith: +), myReaction: reactions.first { $0.0 == user.id }?.1,
            comments: comments)
    }

    /// A shared capsule's photo (its thumbnail or preview), for its owner and their friends.
    func photo(_ capsuleID: String, asset assetID: String, file: MediaLinks.File, for user: User) async throws -> ByteBuffer {
        let capsule = try await visible(capsuleID, to: user)
        guard capsule.assetIDs.contains(assetID), let asset = try await capsules.rows.assets([assetID], userID: capsule.userID).first,
            let bytes = try await blobs.contents(key: file == .thumbnail ? asset.files.thumbnail : asset.files.preview)
        else { throw Self.notFound }
        return bytes
    }

    /// A shared capsule's song clip, for its owner and their friends.
    func clip(_ capsuleID: String, for user: User) async throws -> ByteBuffer {
        try await capsules.clip(of: try await visible(capsuleID, to: user))
    }

    // MARK: Reactions and comments

    func react(_ capsuleID: String, _ emoji: String, for user: User) async throws -> SharedCapsule {
        guard Self.reactions.contains(emoji) else {
            throw Problem.invalidField("emoji", "emoji is one of \(Self.reactions.joined(separator: " ")).")
        }
        let capsule = try await visible(capsuleID, to: user)
        _ = try await limiter.take([.target(user.id)])
        let now = clock.now
        let told = try await database.transaction { db -> Bool in
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
            // The owner hears of a friend's first reaction, not of each change of mind, nor of their own.
            guard before == nil, capsule.userID != user.id else { return false }
            try await NotificationRepository.toAccount(
                .capsuleReaction, userID: capsule.userID, period: capsule.month.text, actor: (user.id, user.name), text: emoji, now: now, in: db)
            return true
        }
        if told { await capsules.bell.changed(NotificationService.anyone) }
        return try await shared(capsuleID, for: user)
    }

    func unreact(_ capsuleID: String, for user: User) async throws -> SharedCapsule {
        let capsule = try await visible(capsuleID, to: user)
        try await database.sql { db in
            try await db.raw("DELETE FROM capsule_reactions WHERE capsule_id = \(bind: capsule.id) AND user_id = \(bind: user.id)").run()
        }
        return try await shared(capsuleID, for: user)
    }

    func comment(_ capsuleID: String, _ raw: String, for user: User) async throws -> SharedCapsule {
        let text = try Guestbook.text(raw, field: "text", max: Guestbook.maxComment, lines: true, what: "a comment")
        let capsule = try await visible(capsuleID, to: user)
        _ = try await limiter.take([.target(user.id)])
        let now = clock.now
        try await database.transaction { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM capsule_comments WHERE capsule_id = \(bind: capsule.id)").first()!
                .decode(column: "n", as: Int.self)
            guard count < Self.maxComments else {
                throw Problem.conflict("too-many-comments", "This capsule has \(count) comments: that is as many as it takes.")
            }
            try await db.raw(
                """
                INSERT INTO capsule_comments (id, capsule_id, author_id, text, created_at)
                VALUES (\(bind: newID()), \(bind: capsule.id), \(bind: user.id), \(bind: text), \(bind: now.millisecondsSince1970))
                """
            ).run()
            if capsule.userID != user.id {
                try await NotificationRepository.toAccount(
                    .capsuleComment, userID: capsule.userID, period: capsule.month.text, actor: (user.id, user.name), text: text, now: now, in: db)
            }
        }
        await capsules.bell.changed(NotificationService.anyone)
        return try await shared(capsuleID, for: user)
    }

    /// Its author, or the capsule's owner, deletes a comment.
    func deleteComment(_ capsuleID: String, _ commentID: String, for user: User) async throws {
        let capsule = try await visible(capsuleID, to: user)
        let deleted = try await database.sql { db in
            try await db.raw(
                """
                DELETE FROM capsule_comments WHERE id = \(bind: commentID) AND capsule_id = \(bind: capsule.id)
                  AND (author_id = \(bind: user.id) OR \(bind: capsule.userID == user.id)) RETURNING id
                """
            ).first() != nil
        }
        guard deleted else { throw Problem.notFound("There is no such comment of yours on this capsule.") }
    }

    /// What `userID` wrote on shared capsules, oldest first (the data export).
    static func comments(by userID: String, in database: any DatabaseEngine) async throws -> [MyData.CapsuleComment] {
        try await database.read { db in
            try await db.raw(
                "SELECT capsule_id, text, created_at FROM capsule_comments WHERE author_id = \(bind: userID) ORDER BY created_at, id"
            ).all().map {
                MyData.CapsuleComment(
                    capsuleId: try $0.decode(column: "capsule_id", as: String.self), text: try $0.decode(column: "text", as: String.self),
                    createdAt: Date(millisecondsSince1970: try $0.decode(column: "created_at", as: Int64.self)))
            }
        }
    }

    // MARK: Rules

    /// A capsule is never so discussed; a bound, not a quota anyone meets.
    static let maxComments = 500
    private static let notFound = Problem.notFound("There is no capsule here that you can see.")

    /// Last month where `user` lives: the board's month.
    func boardMonth(for user: User) async throws -> CapsuleMonth { try await capsules.lastMonth(for: user) }

    /// The capsule, shared, and `user` its owner or a friend of its owner — else 404 (nothing says it exists).
    private func visible(_ capsuleID: String, to user: User) async throws -> CapsuleRepository.Capsule {
        guard capsuleID.utf8.count <= 64, let capsule = try await capsules.rows.find(id: capsuleID), capsule.sharedAt != nil else {
            throw Self.notFound
        }
        if capsule.userID == user.id { return capsule }
        guard try await database.read({ db in try await FriendService.areFriends(capsule.userID, user.id, in: db) }) else { throw Self.notFound }
        return capsule
    }
}
