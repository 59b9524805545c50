import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// What happens to photos after their upload (deleted, rendered or failed, approved, captioned), and an event's totals.
extension PhotoRepository {
    /// A photo's renders recorded, and how that moved its event's feed (nil when the event is gone).
    package struct Rendered: Sendable {
        package let photo: Photo
        package let moved: FeedMove?

        package init(photo: Photo, moved: FeedMove?) {
            self.photo = photo
            self.moved = moved
        }
    }

    /// Deletes the row and logs it; its files are then pending removal (`PendingWrites`), so a crash before the
    /// caller removes them leaves nothing behind (GAL-3: not recoverable).
    package func delete(_ photo: Photo, now: Date) async throws {
        let kind = database.kind
        try await database.transaction { db in
            try await JobRepository.cancel(subjectID: photo.id, in: db)
            // Only the transaction that removed the row gives its bytes back (two deletions may race).
            if try await db.raw("DELETE FROM photos WHERE id = \(bind: photo.id) RETURNING id").first() != nil {
                try await UserRepository.releaseQuota(photo.byteSize, eventID: photo.eventID, in: db)
            }
            try await PendingWriteRepository.beginRemoval(eventID: photo.eventID, photoID: photo.id, in: db)
            try await ChangeLogRepository.append(.photoRemoved, photo: photo, now: now, kindOfDatabase: kind, in: db)
        }
    }

    /// Records the derivatives and marks the photo ready, with its render job done; nil when the photo was
    /// deleted meanwhile (or is not processing any more).
    package func markReady(
        _ photoID: String, jobID: String, width: Int, height: Int, takenAt: Date, derivativeBytes: Int64, video: RenderedVideoFacts? = nil,
        signals: PhotoSignals? = nil, now: Date
    ) async throws -> Rendered? {
        let kind = database.kind
        return try await database.transaction { db in
            try await JobRepository.complete(jobID, in: db)
            guard
                let row = try await db.raw(
                    """
                    UPDATE photos SET status = 'ready', width = \(bind: width), height = \(bind: height),
                        taken_at = \(bind: takenAt.millisecondsSince1970), derivative_bytes = \(bind: derivativeBytes),
                        duration_ms = \(bind: video?.duration.map { Int64(($0 * 1000).rounded()) }), video_bytes = \(bind: video?.bytes),
                        signals = \(bind: signals?.stored)
                    WHERE id = \(bind: photoID) AND status = 'processing'
                    RETURNING *
                    """
                ).first()
            else { return nil }
            let ready = try Self.photo(from: row)
            try await PendingWriteRepository.end(photoID: photoID, in: db)
            return Rendered(
                photo: ready, moved: try await ChangeLogRepository.move([.photoReady], photo: ready, now: now, kindOfDatabase: kind, in: db))
        }
    }

    /// Records a shown photo's preview, with its job done; open galleries swap it in (`photo-updated`).
    /// Nil when the photo was deleted meanwhile.
    package func markPreviewed(_ photoID: String, jobID: String, previewBytes: Int64, now: Date) async throws -> Rendered? {
        let kind = database.kind
        return try await database.transaction { db in
            try await JobRepository.complete(jobID, in: db)
            guard
                let row = try await db.raw(
                    """
                    UPDATE photos SET preview_pending = \(bind: false), derivative_bytes = derivative_bytes + \(bind: previewBytes)
                    WHERE id = \(bind: photoID) AND status = 'ready' AND preview_pending
                    RETURNING *
                    """
                ).first()
            else { return nil }
            let photo = try Self.photo(from: row)
            try await PendingWriteRepository.end(photoID: photoID, in: db)
            return Rendered(
                photo: photo, moved: try await ChangeLogRepository.move([.photoUpdated], photo: photo, now: now, kindOfDatabase: kind, in: db))
        }
    }

    /// Records the server's thumbnail and preview of a photo shown by its first look, with its job done; open
    /// galleries swap them in (`photo-updated`). `refuted`: the first look was another picture. Nil when the photo was
    /// deleted meanwhile.
    package func markRendered(
        _ photoID: String, jobID: String, width: Int, height: Int, takenAt: Date, derivativeBytes: Int64, signals: PhotoSignals?, refuted: Bool,
        now: Date
    ) async throws -> Rendered? {
        let kind = database.kind
        return try await database.transaction { db in
            try await JobRepository.complete(jobID, in: db)
            guard
                let row = try await db.raw(
                    """
                    UPDATE photos SET width = \(bind: width), height = \(bind: height), taken_at = \(bind: takenAt.millisecondsSince1970),
                        derivative_bytes = \(bind: derivativeBytes), signals = \(bind: signals?.stored), preview_pending = \(bind: false),
                        first_look = NULL, first_look_refuted = \(bind: refuted)
                    WHERE id = \(bind: photoID) AND status = 'ready' AND first_look IS NOT NULL
                    RETURNING *
                    """
                ).first()
            else { return nil }
            let photo = try Self.photo(from: row)
            try await PendingWriteRepository.end(photoID: photoID, in: db)
            return Rendered(
                photo: photo, moved: try await ChangeLogRepository.move([.photoUpdated], photo: photo, now: now, kindOfDatabase: kind, in: db))
        }
    }

    /// Whether a first look of this uploader's turned out to be another picture than its photo.
    package func hasRefutedFirstLook(uploaderID: String) async throws -> Bool {
        try await database.read { db in
            try await db.raw("SELECT 1 AS found FROM photos WHERE uploader_id = \(bind: uploaderID) AND first_look_refuted LIMIT 1").first() != nil
        }
    }

    /// Marks the photo failed (its files are removed by the caller), with its render job done.
    package func markFailed(_ photoID: String, jobID: String, reason: String, now: Date) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            try await JobRepository.complete(jobID, in: db)
            try await db.raw("UPDATE photos SET status = 'failed', failure = \(bind: reason) WHERE id = \(bind: photoID)").run()
            guard let failed = try await Self.find(id: photoID, in: db) else { return nil }
            try await ChangeLogRepository.append(.photoFailed, photo: failed, now: now, kindOfDatabase: kind, in: db)
            return failed
        }
    }

    /// Lets a photo into the gallery (ORG-4); nil when it was approved already. Guests hear of it now, as if it
    /// had just become ready (a photo still processing is announced when it is).
    package func approve(_ photoID: String, now: Date) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            let changed = try await db.raw("UPDATE photos SET approved = \(bind: true) WHERE id = \(bind: photoID) AND NOT approved RETURNING id")
                .first()
            guard changed != nil, let photo = try await Self.find(id: photoID, in: db) else { return nil }
            if photo.status == .ready { try await ChangeLogRepository.append(.photoReady, photo: photo, now: now, kindOfDatabase: kind, in: db) }
            return photo
        }
    }

    /// SOC-1: the shooter's caption (nil removes it), and its news in the event's change log.
    package func setCaption(_ photoID: String, _ caption: String?, now: Date) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            try await db.raw("UPDATE photos SET caption = \(bind: caption) WHERE id = \(bind: photoID)").run()
            guard let photo = try await Self.find(id: photoID, in: db) else { return nil }
            try await ChangeLogRepository.append(.photoUpdated, photo: photo, now: now, kindOfDatabase: kind, in: db)
            return photo
        }
    }

    /// A guest's corrected name on everything they posted, each post logged as changed so that open galleries show
    /// it at once; in the caller's transaction (the guest's rename).
    package static func renameShooter(uploaderID: String, to name: String, now: Date, kind: DatabaseKind, in db: any SQLDatabase) async throws {
        let renamed = try await db.raw("UPDATE photos SET shooter_name = \(bind: name) WHERE uploader_id = \(bind: uploaderID) RETURNING *")
            .all().map(Self.photo(from:))
        for photo in renamed where photo.status == .ready {
            try await ChangeLogRepository.append(.photoUpdated, photo: photo, now: now, kindOfDatabase: kind, in: db)
        }
    }

    /// An event's photos (failed ones aside) and the bytes recorded for all of them, for its deletion record.
    package func totals(eventID: String) async throws -> (photos: Int, bytes: Int64) {
        try await database.sql { db in
            let row = try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(CASE WHEN status <> 'failed' THEN 1 ELSE 0 END), 0) AS BIGINT) AS n,
                    CAST(COALESCE(SUM(byte_size + derivative_bytes), 0) AS BIGINT) AS bytes
                FROM photos WHERE event_id = \(bind: eventID)
                """
            ).first()!
            return (try row.decode(column: "n", as: Int.self), try row.decode(column: "bytes", as: Int64.self))
        }
    }

    /// Cancels the render jobs of an event's photos, in the transaction that deletes the event.
    package static func cancelJobs(eventID: String, in db: any SQLDatabase) async throws {
        try await JobRepository.cancelEventJobs(eventID: eventID, in: db)
    }

    /// Removes every photo of an event in the caller's transaction; the bytes they held.
    package static func deleteAll(eventID: String, in db: any SQLDatabase) async throws -> Int64 {
        try await db.raw("DELETE FROM photos WHERE event_id = \(bind: eventID) RETURNING byte_size").all()
            .reduce(Int64(0)) { $0 + (try $1.decode(column: "byte_size", as: Int64.self)) }
    }

    /// The counters a post's row keeps of what others did to it (SOC-2), so pages never count rows.
    package enum Counter: String { case comments = "comment_count", likes = "like_count" }

    /// Moves a post's counter by `delta` (0 reads it) in the caller's transaction; the count after it, nil when the
    /// post is gone.
    package static func count(_ counter: Counter, by delta: Int, on photoID: String, in db: any SQLDatabase) async throws -> Int? {
        try await db.raw(
            "UPDATE photos SET \(unsafeRaw: counter.rawValue) = \(unsafeRaw: counter.rawValue) + \(bind: delta) WHERE id = \(bind: photoID) RETURNING \(unsafeRaw: counter.rawValue)"
        ).first()?.decode(column: counter.rawValue, as: Int.self)
    }
}
