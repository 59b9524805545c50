import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Comments and likes in the database (SOC-2). Each write keeps the post's count in step and logs its change,
/// in one transaction.
struct GuestbookRepository: Sendable {
    package let database: Database

    package struct Comment: Sendable, Equatable {
        package let id: String
        package let photoID: String
        package let eventID: String
        /// The writer's uploader id in the event (guest id, or the organizer's user id).
        package let authorID: String
        package let authorName: String
        package let text: String
        package let createdAt: Date
    }

    /// A position in a post's comments: oldest first, so the cursor is the last one read.
    package typealias Cursor = GalleryCursor

    package func comments(photoID: String, after cursor: Cursor?, limit: Int) async throws -> (items: [Comment], next: Cursor?) {
        try await database.read { db in
            var sql = SQLQueryString("SELECT * FROM comments WHERE photo_id = \(bind: photoID)")
            if let cursor { sql += " AND (created_at, id) > (\(bind: cursor.time), \(bind: cursor.id))" }
            sql.appendInterpolation(unsafeRaw: " ORDER BY created_at, id LIMIT \(limit + 1)")
            let rows = try await db.raw(sql).all().map(Self.comment(from:))
            guard rows.count > limit else { return (rows, nil) }
            let last = rows[limit - 1]
            return (Array(rows.prefix(limit)), Cursor(time: last.createdAt.millisecondsSince1970, id: last.id))
        }
    }

    package func comment(id: String) async throws -> Comment? {
        try await database.read { db in try await db.raw("SELECT * FROM comments WHERE id = \(bind: id)").first().map(Self.comment(from:)) }
    }

    /// Adds the comment; the post's comment count after it, or nil when the post is gone.
    package func add(_ comment: Comment, on photo: Photo, facts: @escaping @Sendable (Int) -> ChangePayload) async throws -> Int? {
        let kind = database.kind
        return try await database.transaction { db in
            guard let count = try await PhotoRepository.count(.comments, by: 1, on: photo.id, in: db) else { return nil }
            try await db.raw(
                """
                INSERT INTO comments (id, photo_id, event_id, author_id, author_name, text, created_at)
                VALUES (\(bind: comment.id), \(bind: photo.id), \(bind: photo.eventID), \(bind: comment.authorID), \(bind: comment.authorName),
                    \(bind: comment.text), \(bind: comment.createdAt.millisecondsSince1970))
                """
            ).run()
            try await ChangeLogRepository.append(
                facts(count), eventID: photo.eventID, photo: photo, now: comment.createdAt, kindOfDatabase: kind, in: db)
            try await NotificationRepository.reacted(
                .commented, to: photo, by: comment.authorID, actorName: comment.authorName, commentID: comment.id, text: comment.text,
                now: comment.createdAt, in: db)
            return count
        }
    }

    /// Removes the comment and logs it; false when it was gone already.
    @discardableResult
    package func remove(_ comment: Comment, of photo: Photo, now: Date) async throws -> Bool {
        let kind = database.kind
        return try await database.transaction { db in try await Self.remove(comment, of: photo, now: now, kind: kind, in: db) }
    }

    private static func remove(_ comment: Comment, of photo: Photo, now: Date, kind: DatabaseKind, in db: any SQLDatabase) async throws -> Bool {
        guard try await db.raw("DELETE FROM comments WHERE id = \(bind: comment.id) RETURNING id").first() != nil else { return false }
        let count = try await PhotoRepository.count(.comments, by: -1, on: photo.id, in: db) ?? 0
        let facts = ChangePayload(
            kind: .commentRemoved, photoId: photo.id, awaitingApproval: photo.approved ? nil : true, commentId: comment.id, commentCount: count)
        try await ChangeLogRepository.append(facts, eventID: photo.eventID, photo: photo, now: now, kindOfDatabase: kind, in: db)
        return true
    }

    /// Sets or clears one person's like (idempotent); the post's like count after it, nil when the post is gone. The
    /// post's author is told of a new like, and the notice goes again with the like.
    package func setLike(_ liked: Bool, on photo: Photo, by likerID: String, name likerName: String, now: Date) async throws -> Int? {
        let kind = database.kind
        return try await database.transaction { db in
            let changed =
                liked
                ? try await db.raw(
                    """
                    INSERT INTO likes (photo_id, liker_id, created_at) VALUES (\(bind: photo.id), \(bind: likerID), \(bind: now.millisecondsSince1970))
                    ON CONFLICT DO NOTHING RETURNING photo_id
                    """
                ).first() != nil
                : try await db.raw("DELETE FROM likes WHERE photo_id = \(bind: photo.id) AND liker_id = \(bind: likerID) RETURNING photo_id")
                    .first() != nil
            guard changed else {
                return try await PhotoRepository.count(.likes, by: 0, on: photo.id, in: db)
            }
            if liked {
                try await NotificationRepository.reacted(.liked, to: photo, by: likerID, actorName: likerName, now: now, in: db)
            } else {
                try await NotificationRepository.likeTakenBack(photoIDs: [photo.id], by: likerID, in: db)
            }
            return try await Self.moveLikes(photo, by: liked ? 1 : -1, now: now, kind: kind, in: db)
        }
    }

    private static func moveLikes(_ photo: Photo, by delta: Int, now: Date, kind: DatabaseKind, in db: any SQLDatabase) async throws -> Int? {
        guard
            let count = try await PhotoRepository.count(.likes, by: delta, on: photo.id, in: db)
        else { return nil }
        let facts = ChangePayload(kind: .likesChanged, photoId: photo.id, awaitingApproval: photo.approved ? nil : true, likeCount: count)
        try await ChangeLogRepository.append(facts, eventID: photo.eventID, photo: photo, now: now, kindOfDatabase: kind, in: db)
        return count
    }

    /// Which of these posts `likerID` likes.
    package func liked(by likerID: String, among photoIDs: [String]) async throws -> Set<String> {
        guard !photoIDs.isEmpty else { return [] }
        return try await database.read { db in
            Set(
                try await db.raw("SELECT photo_id FROM likes WHERE liker_id = \(bind: likerID) AND photo_id IN (\(binds: photoIDs))").all()
                    .map { try $0.decode(column: "photo_id", as: String.self) })
        }
    }

    /// Everything one person wrote or liked in an event, taken back (a guest removed, or erasing their data):
    /// each comment and like as if they had removed it, so counts and live viewers follow; and what they were told
    /// there.
    package func removeAll(by authorID: String, eventID: String, now: Date) async throws {
        let kind = database.kind
        try await database.transaction { db in
            let comments = try await db.raw("SELECT * FROM comments WHERE event_id = \(bind: eventID) AND author_id = \(bind: authorID)")
                .all().map(Self.comment(from:))
            for comment in comments {
                if let photo = try await PhotoRepository.find(id: comment.photoID, in: db) {
                    _ = try await Self.remove(comment, of: photo, now: now, kind: kind, in: db)
                }
            }
            let liked = try await db.raw("SELECT photo_id FROM likes WHERE liker_id = \(bind: authorID)").all()
                .map { try $0.decode(column: "photo_id", as: String.self) }
            var taken: [String] = []
            for id in liked {
                guard let photo = try await PhotoRepository.find(id: id, in: db), photo.eventID == eventID else { continue }
                try await db.raw("DELETE FROM likes WHERE photo_id = \(bind: id) AND liker_id = \(bind: authorID)").run()
                _ = try await Self.moveLikes(photo, by: -1, now: now, kind: kind, in: db)
                taken.append(id)
            }
            try await NotificationRepository.likeTakenBack(photoIDs: taken, by: authorID, in: db)
            try await NotificationRepository.forget(recipientID: authorID, eventID: eventID, in: db)
        }
    }

    /// A guest's corrected name on their comments, in the caller's transaction (the guest's rename).
    package static func renameAuthor(_ authorID: String, eventID: String, to name: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE comments SET author_name = \(bind: name) WHERE author_id = \(bind: authorID) AND event_id = \(bind: eventID)").run()
    }

    package static func comment(from row: any SQLRow) throws -> Comment {
        Comment(
            id: try row.decode(column: "id", as: String.self),
            photoID: try row.decode(column: "photo_id", as: String.self),
            eventID: try row.decode(column: "event_id", as: String.self),
            authorID: try row.decode(column: "author_id", as: String.self),
            authorName: try row.decode(column: "author_name", as: String.self),
            text: try row.decode(column: "text", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
    }
}
