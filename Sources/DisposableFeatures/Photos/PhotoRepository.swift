import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Photos in the database.
struct PhotoRepository: Sendable {
    package let database: Database
    /// How long the server's renders of a photo shown by its first look wait at least (tests only: zero otherwise).
    package var firstLookRenderDelay: TimeInterval = 0

    /// Who is uploading: a guest (limited shots) or the organizer (no limit).
    package enum Uploader: Sendable {
        case guest(Guest, shotsPerGuest: Int)
        case organizer(userID: String, name: String)

        package var id: String {
            switch self {
            case .guest(let guest, _): guest.id
            case .organizer(let userID, _): userID
            }
        }

        package var name: String {
            switch self {
            case .guest(let guest, _): guest.name
            case .organizer(_, let name): name
            }
        }

        package var isOrganizer: Bool {
            if case .organizer = self { return true }
            return false
        }
    }

    package enum InsertOutcome: Sendable {
        /// With how the event's feed moved (nil when the event was gone).
        case inserted(Photo, moved: FeedMove?)
        case shotLimitReached
        /// A post that takes no shot, past `Guestbook.postsPerGuest`.
        case postLimitReached
        /// The organizer's storage quota has no room for it (`Quota`).
        case quotaExceeded
        /// The idempotency key or the content is already there (the caller looks up which).
        case conflict
    }

    /// What a video's render adds to its row (SOC-4).
    package struct RenderedVideoFacts: Sendable {
        package let bytes: Int64
        package let duration: Double?
    }

    package struct NewPhoto: Sendable {
        package let id: String
        package let eventID: String
        package let idempotencyKey: String?
        package let sha256: String
        package let format: MediaFormat
        package let source: PhotoSource
        package let byteSize: Int64
        package let uploadedAt: Date
        /// False when the event holds guests' photos for approval (ORG-4).
        package var approved = true
        /// A resumable upload held the guest's shot since its creation: the photo takes that one.
        package var shotReserved = false
        /// SOC-1: notes, and drawings, take a shot only where the event says so.
        package var takesShot = true
        package var kind = PostKind.photo
        /// A note's words.
        package var text: String? = nil
        /// Shown at once by the phone's first look, stored beside the original (`FirstLook`).
        package var firstLook: ShownFirstLook? = nil
        /// The event had a photo when the request read it: its first photo's time is set, never to change again.
        package var eventHadPhotos = false

        /// The server's render it waits for, if any: a photo seen already by its first look waits behind every
        /// photo nobody sees yet; a note has none.
        package var render: (kind: JobQueue.Kind, priority: JobQueue.Priority)? {
            if firstLook != nil { return (.renderPreview, .seen) }
            if kind == .note { return nil }
            if case .video = format { return (.renderPhoto, .video) }
            return (.renderPhoto, .unseen)
        }
    }

    /// What a photo shown by its first look has from the start: its size and capture time from the original's
    /// header, the first look's bytes and grey miniature.
    package struct ShownFirstLook: Sendable {
        package let width: Int
        package let height: Int
        package let takenAt: Date
        package let bytes: Int64
        package let miniature: [UInt8]
    }

    /// Records an upload whose original is already stored: takes a shot (`ShotLimit`), inserts the row and its
    /// processing job, locks the event's settings and logs the change — all in one transaction (UP-2, EV-2).
    package func insert(_ new: NewPhoto, by uploader: Uploader) async throws -> InsertOutcome {
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
                        ? try await GuestRepository.takeReservedShot(guestID: guest.id, in: db)
                        : try await GuestRepository.takeShot(guestID: guest.id, shotsPerGuest: shotsPerGuest, in: db)
                    guard let taken else { return .shotLimitReached }
                    number = taken
                case .organizer:
                    number = try await EventRepository.takeOrganizerShot(eventID: new.eventID, in: db) ?? 1
                }
                let shown = new.firstLook
                let status = new.kind == .note || shown != nil ? "ready" : "processing"
                let inserted = try await db.raw(
                    """
                    INSERT INTO photos (id, event_id, uploader_id, shooter_name, shooter_number, idempotency_key, sha256, format,
                        source, byte_size, taken_at, uploaded_at, status, approved, kind, caption, width, height, derivative_bytes,
                        preview_pending, first_look)
                    VALUES (\(bind: new.id), \(bind: new.eventID), \(bind: uploader.id), \(bind: uploader.name), \(bind: number),
                        \(bind: new.idempotencyKey), \(bind: new.sha256), \(bind: new.kind == .note ? "text" : new.format.rawValue),
                        \(bind: new.source.rawValue), \(bind: new.byteSize), \(bind: (shown?.takenAt ?? new.uploadedAt).millisecondsSince1970),
                        \(bind: new.uploadedAt.millisecondsSince1970), \(bind: status), \(bind: new.approved),
                        \(bind: new.kind.rawValue), \(bind: new.text), \(bind: shown?.width), \(bind: shown?.height), \(bind: shown?.bytes ?? 0),
                        \(bind: shown != nil), \(bind: shown.map { $0.miniature.hex }))
                    ON CONFLICT DO NOTHING
                    RETURNING *
                    """
                ).first()
                // Undo the shot taken above: a retry or a duplicate must never count twice.
                guard let inserted else { throw RollBack.conflict }
                let photo = try Self.photo(from: inserted)
                if let render = new.render {
                    try await PendingWriteRepository.end(photoID: new.id, in: db)
                    try await JobRepository.enqueue(
                        render.kind, subjectID: new.id, owner: uploader.id, priority: render.priority,
                        now: new.uploadedAt + (shown != nil ? firstLookRenderDelay : 0), in: db)
                }
                if !new.eventHadPhotos { try await EventRepository.markFirstPhoto(eventID: new.eventID, at: new.uploadedAt, in: db) }
                // The rows every upload of the event shares come last, each held from here to the commit: the
                // organizer's account (its quota), then the event (its change counter) — in that order everywhere.
                guard try await UserRepository.chargeQuota(new.byteSize, eventID: new.eventID, in: db) else { throw RollBack.quotaExceeded }
                let moved = try await ChangeLogRepository.move(
                    shown != nil ? [.photoAdded, .photoReady] : [.photoAdded], photo: photo, now: new.uploadedAt, kindOfDatabase: kind, in: db)
                return .inserted(photo, moved: moved)
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
    package func usage(userID: String) async throws -> Quota.Usage? {
        try await database.read { db in try await UserRepository.usage(userID: userID, in: db) }
    }

    package func find(id: String) async throws -> Photo? {
        try await database.read { db in try await Self.find(id: id, in: db) }
    }

    package static func find(id: String, in db: any SQLDatabase) async throws -> Photo? {
        try await db.raw("SELECT * FROM photos WHERE id = \(bind: id)").first().map(photo(from:))
    }

    package func find(uploaderID: String, idempotencyKey: String) async throws -> Photo? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM photos WHERE uploader_id = \(bind: uploaderID) AND idempotency_key = \(bind: idempotencyKey)")
                .first().map(Self.photo(from:))
        }
    }

    package func find(eventID: String, sha256: String) async throws -> Photo? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM photos WHERE event_id = \(bind: eventID) AND sha256 = \(bind: sha256)")
                .first().map(Self.photo(from:))
        }
    }

    /// Which of `hashes` the event has among the photos `visibility` lets the viewer see (UP-7).
    package func existingHashes(eventID: String, among hashes: [String], visibleTo visibility: PhotoVisibility) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        return try await database.read { db in
            var sql = SQLQueryString("SELECT sha256 FROM photos WHERE event_id = \(bind: eventID) AND sha256 IN (\(binds: hashes)) AND ")
            sql += visibility.sqlCondition
            return Set(try await db.raw(sql).all().map { try $0.decode(column: "sha256", as: String.self) })
        }
    }

    package static func photo(from row: any SQLRow) throws -> Photo {
        let column = ColumnReader(row)
        return Photo(
            id: try column("id", as: String.self),
            eventID: try column("event_id", as: String.self),
            uploaderID: try column("uploader_id", as: String.self),
            shooterName: try column("shooter_name", as: String.self),
            shooterNumber: try column("shooter_number", as: Int.self),
            sha256: try column("sha256", as: String.self),
            format: MediaFormat(rawValue: try column("format", as: String.self)) ?? .image(.jpeg),
            source: PhotoSource(rawValue: try column("source", as: String.self)) ?? .camera,
            byteSize: try column("byte_size", as: Int64.self),
            width: try column.optional("width", as: Int.self),
            height: try column.optional("height", as: Int.self),
            takenAt: Date(millisecondsSince1970: try column("taken_at", as: Int64.self)),
            uploadedAt: Date(millisecondsSince1970: try column("uploaded_at", as: Int64.self)),
            status: PhotoStatus(rawValue: try column("status", as: String.self)) ?? .processing,
            approved: try column("approved", as: Bool.self),
            failure: try column.optional("failure", as: String.self),
            caption: try column.optional("caption", as: String.self),
            kind: PostKind(rawValue: try column("kind", as: String.self)) ?? .photo,
            likeCount: try column("like_count", as: Int.self),
            commentCount: try column("comment_count", as: Int.self),
            duration: try column.optional("duration_ms", as: Int64.self).map { Double($0) / 1000 },
            videoBytes: try column.optional("video_bytes", as: Int64.self),
            previewPending: try column("preview_pending", as: Bool.self),
            firstLook: try column.optional("first_look", as: String.self).flatMap { Array(hex: $0) }
        )
    }
}
