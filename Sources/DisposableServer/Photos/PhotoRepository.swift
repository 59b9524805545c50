import DisposableAPI
import Foundation
import SQLKit

/// Photos in the database.
public struct PhotoRepository: Sendable {
    let database: any DatabaseEngine

    /// Who is uploading: a guest (limited shots) or the organizer (no limit).
    enum Uploader: Sendable {
        case guest(Guest, shotsPerGuest: Int)
        case organizer(userID: String, name: String)

        var id: String {
            switch self {
            case .guest(let guest, _): guest.id
            case .organizer(let userID, _): userID
            }
        }

        var name: String {
            switch self {
            case .guest(let guest, _): guest.name
            case .organizer(_, let name): name
            }
        }

        var isOrganizer: Bool {
            if case .organizer = self { return true }
            return false
        }
    }

    enum InsertOutcome: Sendable {
        case inserted(Photo)
        case shotLimitReached
        /// A post that takes no shot, past `Guestbook.postsPerGuest`.
        case postLimitReached
        /// The organizer's storage quota has no room for it (`Quota`).
        case quotaExceeded
        /// The idempotency key or the content is already there (the caller looks up which).
        case conflict
    }

    /// What a video's render adds to its row (SOC-4).
    struct RenderedVideoFacts: Sendable {
        let bytes: Int64
        let duration: Double?
    }

    struct NewPhoto: Sendable {
        let id: String
        let eventID: String
        let idempotencyKey: String?
        let sha256: String
        let format: MediaFormat
        let source: PhotoSource
        let byteSize: Int64
        let uploadedAt: Date
        /// False when the event holds guests' photos for approval (ORG-4).
        var approved = true
        /// A resumable upload held the guest's shot since its creation: the photo takes that one.
        var shotReserved = false
        /// SOC-1: notes, and drawings, take a shot only where the event says so.
        var takesShot = true
        var kind = PostKind.photo
        /// A note's words.
        var text: String? = nil
    }

    /// Records an upload whose original is already stored: takes a shot (`ShotLimit`), inserts the row and its
    /// processing job, locks the event's settings and logs the change — all in one transaction (UP-2, EV-2).
    func insert(_ new: NewPhoto, by uploader: Uploader) async throws -> InsertOutcome {
        let kind = database.kind
        do {
            return try await database.transaction { db in
                let number: Int
                switch uploader {
                case .guest(let guest, _) where !new.takesShot:
                    // Free posts are numbered among their own kind, and bounded.
                    let row = try await db.raw(
                        """
                        SELECT COUNT(*) AS n FROM photos WHERE event_id = \(bind: new.eventID) AND uploader_id = \(bind: guest.id)
                            AND kind = \(bind: new.kind.rawValue) AND source = \(bind: new.source.rawValue)
                        """
                    ).first()
                    let made = try row?.decode(column: "n", as: Int.self) ?? 0
                    guard made < Guestbook.postsPerGuest else { return .postLimitReached }
                    number = made + 1
                case .guest(let guest, let shotsPerGuest):
                    let taken =
                        new.shotReserved
                        ? try await ShotLimit.takeReserved(guestID: guest.id, in: db)
                        : try await ShotLimit.take(guestID: guest.id, shotsPerGuest: shotsPerGuest, in: db)
                    guard let taken else { return .shotLimitReached }
                    number = taken
                case .organizer:
                    let row = try await db.raw(
                        "UPDATE events SET organizer_shots = organizer_shots + 1 WHERE id = \(bind: new.eventID) RETURNING organizer_shots"
                    ).first()
                    number = try row?.decode(column: "organizer_shots", as: Int.self) ?? 1
                }
                let inserted = try await db.raw(
                    """
                    INSERT INTO photos (id, event_id, uploader_id, shooter_name, shooter_number, idempotency_key, sha256, format,
                        source, byte_size, taken_at, uploaded_at, status, approved, kind, caption)
                    VALUES (\(bind: new.id), \(bind: new.eventID), \(bind: uploader.id), \(bind: uploader.name), \(bind: number),
                        \(bind: new.idempotencyKey), \(bind: new.sha256), \(bind: new.kind == .note ? "text" : new.format.rawValue),
                        \(bind: new.source.rawValue), \(bind: new.byteSize), \(bind: new.uploadedAt.millisecondsSince1970),
                        \(bind: new.uploadedAt.millisecondsSince1970), \(bind: new.kind == .note ? "ready" : "processing"), \(bind: new.approved),
                        \(bind: new.kind.rawValue), \(bind: new.text))
                    ON CONFLICT DO NOTHING
                    RETURNING id
                    """
                ).first()
                // Undo the shot taken above: a retry or a duplicate must never count twice.
                guard inserted != nil else { throw RollBack.conflict }
                guard try await Quota.charge(new.byteSize, eventID: new.eventID, in: db) else { throw RollBack.quotaExceeded }
                if new.kind != .note {
                    try await PendingWrites.end(photoID: new.id, in: db)
                    try await JobQueue.enqueue(.renderPhoto, subjectID: new.id, owner: uploader.id, now: new.uploadedAt, in: db)
                }
                try await EventRepository.markFirstPhoto(eventID: new.eventID, at: new.uploadedAt, in: db)
                let photo = try await Self.find(id: new.id, in: db)!
                try await ChangeLog.append(.photoAdded, photo: photo, now: new.uploadedAt, kindOfDatabase: kind, in: db)
                return .inserted(photo)
            }
        } catch RollBack.conflict {
            return .conflict
        } catch RollBack.quotaExceeded {
            return .quotaExceeded
        }
    }

    private enum RollBack: Error {
        case conflict, quotaExceeded
    }

    /// What the account counts against its quota, and may (`Quota`).
    func usage(userID: String) async throws -> Quota.Usage? {
        try await database.read { db in try await Quota.usage(userID: userID, in: db) }
    }

    func find(id: String) async throws -> Photo? {
        try await database.read { db in try await Self.find(id: id, in: db) }
    }

    static func find(id: String, in db: any SQLDatabase) async throws -> Photo? {
        try await db.raw("SELECT * FROM photos WHERE id = \(bind: id)").first().map(photo(from:))
    }

    func find(uploaderID: String, idempotencyKey: String) async throws -> Photo? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM photos WHERE uploader_id = \(bind: uploaderID) AND idempotency_key = \(bind: idempotencyKey)")
                .first().map(Self.photo(from:))
        }
    }

    func find(eventID: String, sha256: String) async throws -> Photo? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM photos WHERE event_id = \(bind: eventID) AND sha256 = \(bind: sha256)")
                .first().map(Self.photo(from:))
        }
    }

    /// Which of `hashes` the event has among the photos `visibility` lets the viewer see (UP-7).
    func existingHashes(eventID: String, among hashes: [String], visibleTo visibility: PhotoVisibility) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        return try await database.read { db in
            var sql = SQLQueryString("SELECT sha256 FROM photos WHERE event_id = \(bind: eventID) AND sha256 IN (\(binds: hashes)) AND ")
            sql += visibility.sqlCondition
            return Set(try await db.raw(sql).all().map { try $0.decode(column: "sha256", as: String.self) })
        }
    }

    static func photo(from row: any SQLRow) throws -> Photo {
        Photo(
            id: try row.decode(column: "id", as: String.self),
            eventID: try row.decode(column: "event_id", as: String.self),
            uploaderID: try row.decode(column: "uploader_id", as: String.self),
            shooterName: try row.decode(column: "shooter_name", as: String.self),
            shooterNumber: try row.decode(column: "shooter_number", as: Int.self),
            sha256: try row.decode(column: "sha256", as: String.self),
            format: MediaFormat(rawValue: try row.decode(column: "format", as: String.self)) ?? .image(.jpeg),
            source: PhotoSource(rawValue: try row.decode(column: "source", as: String.self)) ?? .camera,
            byteSize: try row.decode(column: "byte_size", as: Int64.self),
            width: try row.decode(column: "width", as: Int?.self),
            height: try row.decode(column: "height", as: Int?.self),
            takenAt: Date(millisecondsSince1970: try row.decode(column: "taken_at", as: Int64.self)),
            uploadedAt: Date(millisecondsSince1970: try row.decode(column: "uploaded_at", as: Int64.self)),
            status: PhotoStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .processing,
            approved: try row.decode(column: "approved", as: Bool.self),
            failure: try row.decode(column: "failure", as: String?.self),
            caption: try row.decode(column: "caption", as: String?.self),
            kind: PostKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .photo,
            likeCount: try row.decode(column: "like_count", as: Int.self),
            commentCount: try row.decode(column: "comment_count", as: Int.self),
            duration: try row.decode(column: "duration_ms", as: Int64?.self).map { Double($0) / 1000 },
            videoBytes: try row.decode(column: "video_bytes", as: Int64?.self)
        )
    }
}

/// Gallery pages and counts.
extension PhotoRepository {
    enum Order: String, Sendable {
        /// Newest upload first (the live gallery).
        case uploaded
        /// Latest capture time first.
        case taken

        var column: String { self == .uploaded ? "uploaded_at" : "taken_at" }
    }

    /// A position in a gallery: the sort time and id of the last item seen. New photos sort before
    /// any cursor, so paging stays stable while people keep shooting.
    struct Cursor: Sendable {
        let time: Int64
        let id: String

        /// Base64url without padding. Read and written byte by byte: `replacingOccurrences` goes through
        /// NSString on Linux, and decoding the cursor that way was 9 % of a deep page's CPU.
        var token: String {
            let base64 = Data("\(time):\(id)".utf8).base64EncodedData()
            return String(
                decoding: base64.lazy.filter { $0 != UInt8(ascii: "=") }.map { byte -> UInt8 in
                    switch byte {
                    case UInt8(ascii: "+"): UInt8(ascii: "-")
                    case UInt8(ascii: "/"): UInt8(ascii: "_")
                    default: byte
                    }
                }, as: UTF8.self)
        }

        init(time: Int64, id: String) {
            self.time = time
            self.id = id
        }

        init?(token: String) {
            guard token.utf8.count <= 256 else { return nil }
            var base64 = token.utf8.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "-"): UInt8(ascii: "+")
                case UInt8(ascii: "_"): UInt8(ascii: "/")
                default: byte
                }
            }
            base64 += repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
            guard let data = Data(base64Encoded: Data(base64)) else { return nil }
            let parts = data.split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let time = Int64(String(decoding: parts[0], as: UTF8.self)), !parts[1].isEmpty,
                parts[1].allSatisfy({
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20)
                })
            else { return nil }
            self.init(time: time, id: String(decoding: parts[1], as: UTF8.self))
        }
    }

    /// Which photos a gallery lists.
    enum Listing: Sendable {
        /// "My shots": everything one shooter took, in any state.
        case mine(uploaderID: String)
        /// The shared gallery: ready photos the viewer may see.
        case gallery(PhotoVisibility)
    }

    /// One page of an event's posts (or of one kind of them), newest first.
    func page(
        eventID: String, _ listing: Listing, kind: PostKind? = nil, order: Order, after cursor: Cursor?, limit: Int
    ) async throws -> (items: [Photo], next: Cursor?) {
        try await database.read { db in
            var sql = SQLQueryString("SELECT * FROM photos WHERE event_id = \(bind: eventID)")
            if let kind {
                sql.appendInterpolation(unsafeRaw: " AND kind = ")
                sql.appendInterpolation(bind: kind.rawValue)
            }
            switch listing {
            case .mine(let uploaderID):
                sql.appendInterpolation(unsafeRaw: " AND uploader_id = ")
                sql.appendInterpolation(bind: uploaderID)
            case .gallery(let visibility):
                sql.appendInterpolation(unsafeRaw: " AND status = 'ready' AND ")
                sql += visibility.sqlCondition
            }
            let column = order.column
            if let cursor {
                // A row value: both engines walk the index from the cursor (the OR form made SQLite scan).
                sql.appendInterpolation(unsafeRaw: " AND (\(column), id) < (")
                sql.appendInterpolation(bind: cursor.time)
                sql.appendInterpolation(unsafeRaw: ", ")
                sql.appendInterpolation(bind: cursor.id)
                sql.appendInterpolation(unsafeRaw: ")")
            }
            sql.appendInterpolation(unsafeRaw: " ORDER BY \(column) DESC, id DESC LIMIT \(limit + 1)")
            let photos = try await db.raw(sql).all().map(Self.photo(from:))
            guard photos.count > limit else { return (photos, nil) }
            let last = photos[limit - 1]
            let time = order == .uploaded ? last.uploadedAt : last.takenAt
            return (Array(photos.prefix(limit)), Cursor(time: time.millisecondsSince1970, id: last.id))
        }
    }

    /// The ready photos a viewer may see, oldest first (the ZIP; notes have no file).
    func visible(eventID: String, to visibility: PhotoVisibility) async throws -> [Photo] {
        try await database.sql { db in
            var sql = SQLQueryString("SELECT * FROM photos WHERE event_id = \(bind: eventID) AND status = 'ready' AND kind <> 'note' AND ")
            sql += visibility.sqlCondition
            sql.appendInterpolation(unsafeRaw: " ORDER BY uploaded_at, id")
            return try await db.raw(sql).all().map(Self.photo(from:))
        }
    }

    /// What a recap chooses from (CAP-1): the photos every guest of the event sees — ready, approved, taken with a
    /// camera or sent from a library (not notes, drawings or videos) — with their measures.
    func recapCandidates(eventID: String) async throws -> [(photo: Photo, signals: PhotoSignals?)] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM photos WHERE event_id = \(bind: eventID) AND status = 'ready' AND approved AND kind = 'photo'
                  AND source <> 'drawing'
                """
            ).all().map { row in (try Self.photo(from: row), PhotoSignals(stored: try row.decode(column: "signals", as: String?.self))) }
        }
    }

    /// Photos waiting for the reveal: everything stored that did not fail.
    func developingCount(eventID: String) async throws -> Int {
        try await database.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM photos WHERE event_id = \(bind: eventID) AND status <> 'failed'")
                .first()!.decode(column: "n", as: Int.self)
        }
    }

    /// The raw facts behind the organizer's stats (ORG-2).
    func all(eventID: String) async throws -> [Photo] {
        try await database.sql { db in
            try await db.raw("SELECT * FROM photos WHERE event_id = \(bind: eventID) ORDER BY uploaded_at, id").all().map(Self.photo(from:))
        }
    }

    func storedBytes(eventID: String) async throws -> Int64 {
        try await database.sql { db in
            try await db.raw(
                "SELECT CAST(COALESCE(SUM(byte_size + derivative_bytes), 0) AS BIGINT) AS bytes FROM photos WHERE event_id = \(bind: eventID) AND status <> 'failed'"
            ).first()!.decode(column: "bytes", as: Int64.self)
        }
    }

    /// Deletes the row and logs it; its files are then pending removal (`PendingWrites`), so a crash before the
    /// caller removes them leaves nothing behind (GAL-3: not recoverable).
    func delete(_ photo: Photo, now: Date) async throws {
        let kind = database.kind
        try await database.transaction { db in
            try await db.raw("DELETE FROM jobs WHERE subject_id = \(bind: photo.id)").run()
            // Only the transaction that removed the row gives its bytes back (two deletions may race).
            if try await db.raw("DELETE FROM photos WHERE id = \(bind: photo.id) RETURNING id").first() != nil {
                try await Quota.release(photo.byteSize, eventID: photo.eventID, in: db)
            }
            try await db.raw(
                """
                INSERT INTO pending_writes (photo_id, event_id, instance, started_at)
                VALUES (\(bind: photo.id), \(bind: photo.eventID), '', 0)
                ON CONFLICT (photo_id) DO NOTHING
                """
            ).run()
            try await ChangeLog.append(.photoRemoved, photo: photo, now: now, kindOfDatabase: kind, in: db)
        }
    }

    /// Records the derivatives and marks the photo ready, with its render job done; nil when the photo was
    /// deleted meanwhile (or is not processing any more).
    func markReady(
        _ photoID: String, jobID: String, width: Int, height: Int, takenAt: Date, derivativeBytes: Int64, video: RenderedVideoFacts? = nil,
        signals: PhotoSignals? = nil, now: Date
    ) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            try await JobQueue.complete(jobID, in: db)
            guard
                try await db.raw(
                    """
                    UPDATE photos SET status = 'ready', width = \(bind: width), height = \(bind: height),
                        taken_at = \(bind: takenAt.millisecondsSince1970), derivative_bytes = \(bind: derivativeBytes),
                        duration_ms = \(bind: video?.duration.map { Int64(($0 * 1000).rounded()) }), video_bytes = \(bind: video?.bytes),
                        signals = \(bind: signals?.stored)
                    WHERE id = \(bind: photoID) AND status = 'processing'
                    RETURNING id
                    """
                ).first() != nil,
                let ready = try await Self.find(id: photoID, in: db)
            else { return nil }
            try await PendingWrites.end(photoID: photoID, in: db)
            try await ChangeLog.append(.photoReady, photo: ready, now: now, kindOfDatabase: kind, in: db)
            return ready
        }
    }

    /// Marks the photo failed (its files are removed by the caller), with its render job done.
    func markFailed(_ photoID: String, jobID: String, reason: String, now: Date) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            try await JobQueue.complete(jobID, in: db)
            try await db.raw("UPDATE photos SET status = 'failed', failure = \(bind: reason) WHERE id = \(bind: photoID)").run()
            guard let failed = try await Self.find(id: photoID, in: db) else { return nil }
            try await ChangeLog.append(.photoFailed, photo: failed, now: now, kindOfDatabase: kind, in: db)
            return failed
        }
    }

    /// Lets a photo into the gallery (ORG-4); nil when it was approved already. Guests hear of it now, as if it
    /// had just become ready (a photo still processing is announced when it is).
    func approve(_ photoID: String, now: Date) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            let changed = try await db.raw("UPDATE photos SET approved = \(bind: true) WHERE id = \(bind: photoID) AND NOT approved RETURNING id")
                .first()
            guard changed != nil, let photo = try await Self.find(id: photoID, in: db) else { return nil }
            if photo.status == .ready { try await ChangeLog.append(.photoReady, photo: photo, now: now, kindOfDatabase: kind, in: db) }
            return photo
        }
    }

    /// SOC-1: the shooter's caption (nil removes it), and its news in the event's change log.
    func setCaption(_ photoID: String, _ caption: String?, now: Date) async throws -> Photo? {
        let kind = database.kind
        return try await database.transaction { db in
            try await db.raw("UPDATE photos SET caption = \(bind: caption) WHERE id = \(bind: photoID)").run()
            guard let photo = try await Self.find(id: photoID, in: db) else { return nil }
            try await ChangeLog.append(.photoUpdated, photo: photo, now: now, kindOfDatabase: kind, in: db)
            return photo
        }
    }

    /// An event's photos (failed ones aside) and the bytes recorded for all of them, for its deletion record.
    func totals(eventID: String) async throws -> (photos: Int, bytes: Int64) {
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
    static func cancelJobs(eventID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM jobs WHERE subject_id IN (SELECT id FROM photos WHERE event_id = \(bind: eventID))").run()
    }
}
