import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird

/// The Story Board (the capsule seed's stories 20–23, 34, 47–48): I share last month's capsule; my friends see it
/// this month, enlarge its photos, react (one emoji each) and comment; the board starts again with each month. Only
/// its owner and their friends ever see a shared capsule — every read checks the friendship as it is now.
package struct StoryBoardService: Sendable {
    let rows: StoryBoardRepository
    package let capsules: CapsuleService
    package let blobs: any BlobStore
    package let limiter: RateLimiter
    package let clock: any AppClock

    init(rows: StoryBoardRepository, capsules: CapsuleService, blobs: any BlobStore, limiter: RateLimiter, clock: any AppClock) {
        self.rows = rows
        self.capsules = capsules
        self.blobs = blobs
        self.limiter = limiter
        self.clock = clock
    }

    package static let reactions = Reactions.emojis

    // MARK: Sharing

    /// Puts my capsule of `month` on the board (last month's only), and tells my friends.
    package func share(_ month: String, for user: User) async throws -> CapsuleJSON {
        let capsule = try await capsules.find(month, for: user)
        let boardMonth = try await self.boardMonth(for: user)
        guard capsule.month == boardMonth else {
            throw Problem.conflict("not-this-month", "Only last month's capsule goes on the Story Board (\(boardMonth.text)).")
        }
        let told = try await rows.share(capsule, by: user, now: clock.now)
        if told { await capsules.bell.changed(NotificationService.anyone) }
        return try await capsules.capsule(month, for: user)
    }

    /// Takes it off the board (its reactions and comments stay with it, should it go back).
    package func unshare(_ month: String, for user: User) async throws {
        let capsule = try await capsules.find(month, for: user)
        try await rows.unshare(capsule)
    }

    // MARK: The board

    /// This month's board as `user` sees it: their friends' shared capsules of last month, and theirs.
    package func board(for user: User) async throws -> StoryBoard {
        let month = try await boardMonth(for: user)
        let ids = try await rows.sharedIDs(month: month, seenBy: user.id)
        var items: [SharedCapsule] = []
        for id in ids { items.append(try await shared(id, for: user)) }
        return StoryBoard(month: month.text, items: items)
    }

    /// One shared capsule, if `user` may see it (its owner, or a friend of its owner); 404 otherwise.
    package func shared(_ capsuleID: String, for user: User) async throws -> SharedCapsule {
        let capsule = try await visible(capsuleID, to: user)
        let assets = try await capsules.rows.assets(capsule.assetIDs, userID: capsule.userID)
        let discussion = try await rows.discussion(of: capsule, sharedAt: capsule.sharedAt!)
        let (owner, reactions) = (discussion.owner, discussion.reactions)
        let comments = discussion.comments.map { item in
            var comment = item.comment
            comment.canDelete = Reactions.mayDelete(commentBy: item.authorID, viewerID: user.id, viewerOwnsTarget: capsule.userID == user.id)
            return comment
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
    package func photo(_ capsuleID: String, asset assetID: String, file: MediaLinks.File, for user: User) async throws -> ByteBuffer {
        let capsule = try await visible(capsuleID, to: user)
        guard capsule.assetIDs.contains(assetID), let asset = try await capsules.rows.assets([assetID], userID: capsule.userID).first,
            let bytes = try await blobs.contents(key: file == .thumbnail ? asset.files.thumbnail : asset.files.preview)
        else { throw Self.notFound }
        return bytes
    }

    /// A shared capsule's song clip, for its owner and their friends.
    package func clip(_ capsuleID: String, for user: User) async throws -> ByteBuffer {
        try await capsules.clip(of: try await visible(capsuleID, to: user))
    }

    // MARK: Reactions and comments

    package func react(_ capsuleID: String, _ emoji: String, for user: User) async throws -> SharedCapsule {
        guard Self.reactions.contains(emoji) else {
            throw Problem.invalidField("emoji", "emoji is one of \(Self.reactions.joined(separator: " ")).")
        }
        let capsule = try await visible(capsuleID, to: user)
        _ = try await limiter.take([.target(user.id)])
        let told = try await rows.react(
            emoji, on: capsule, by: user, now: clock.now,
            // The owner hears of a friend's first reaction, not of each change of mind, nor of their own.
            tellOwner: Reactions.tellsOwner(actorID: user.id, ownerID: capsule.userID))
        if told { await capsules.bell.changed(NotificationService.anyone) }
        return try await shared(capsuleID, for: user)
    }

    package func unreact(_ capsuleID: String, for user: User) async throws -> SharedCapsule {
        let capsule = try await visible(capsuleID, to: user)
        try await rows.unreact(on: capsule, by: user.id)
        return try await shared(capsuleID, for: user)
    }

    package func comment(_ capsuleID: String, _ raw: String, for user: User) async throws -> SharedCapsule {
        let text = try Reactions.comment(raw)
        let capsule = try await visible(capsuleID, to: user)
        _ = try await limiter.take([.target(user.id)])
        try await rows.comment(
            text, on: capsule, by: user, now: clock.now, tellOwner: Reactions.tellsOwner(actorID: user.id, ownerID: capsule.userID))
        await capsules.bell.changed(NotificationService.anyone)
        return try await shared(capsuleID, for: user)
    }

    /// Its author, or the capsule's owner, deletes a comment.
    package func deleteComment(_ capsuleID: String, _ commentID: String, for user: User) async throws {
        let capsule = try await visible(capsuleID, to: user)
        let author = try await rows.commentAuthor(commentID, on: capsule)
        let deleted = author.map { Reactions.mayDelete(commentBy: $0, viewerID: user.id, viewerOwnsTarget: capsule.userID == user.id) } ?? false
        if deleted { try await rows.deleteComment(commentID) }
        guard deleted else { throw Problem.notFound("There is no such comment of yours on this capsule.") }
    }

    // MARK: Rules

    private static let notFound = Problem.notFound("There is no capsule here that you can see.")

    /// Last month where `user` lives: the board's month.
    package func boardMonth(for user: User) async throws -> CapsuleMonth { try await capsules.lastMonth(for: user) }

    /// The capsule, shared, and `user` its owner or a friend of its owner — else 404 (nothing says it exists).
    private func visible(_ capsuleID: String, to user: User) async throws -> Capsule {
        guard capsuleID.utf8.count <= 64, let capsule = try await capsules.rows.find(id: capsuleID), capsule.sharedAt != nil else {
            throw Self.notFound
        }
        if capsule.userID == user.id { return capsule }
        guard try await rows.areFriends(capsule.userID, user.id) else { throw Self.notFound }
        return capsule
    }
}
