import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Gallery pages and counts.
extension PhotoRepository {
    package typealias Order = GalleryOrder
    package typealias Cursor = GalleryCursor

    /// Which photos a gallery lists.
    package enum Listing: Sendable {
        /// "My shots": everything one shooter took, in any state.
        case mine(uploaderID: String)
        /// The shared gallery: ready photos the viewer may see.
        case gallery(PhotoVisibility)
    }

    /// One page of an event's posts (or of one kind of them), newest first.
    package func page(
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
            return try await Self.newestFirst(sql, by: order, after: cursor, limit: limit, in: db)
        }
    }

    /// `sql` (a SELECT of photos with its conditions) after the cursor, newest first by `order`, as one page.
    private static func newestFirst(
        _ query: SQLQueryString, by order: Order, after cursor: Cursor?, limit: Int, in db: any SQLDatabase
    ) async throws -> (items: [Photo], next: Cursor?) {
        var sql = query
        sql.newestFirst(by: order.column, after: cursor.map { ($0.time, $0.id) }, limit: limit)
        let photos = try await db.raw(sql).all().map(Self.photo(from:))
        guard photos.count > limit else { return (photos, nil) }
        let last = photos[limit - 1]
        let time = order == .uploaded ? last.uploadedAt : last.takenAt
        return (Array(photos.prefix(limit)), Cursor(time: time.millisecondsSince1970, id: last.id))
    }

    /// What these shooters took in these events — photos, drawings and videos, not notes; not failed — newest first,
    /// in pages: a person's shots across their events.
    package func shots(
        uploaderIDs: [String], eventIDs: [String], after cursor: Cursor?, limit: Int
    ) async throws -> (items: [Photo], next: Cursor?) {
        guard !uploaderIDs.isEmpty, !eventIDs.isEmpty else { return ([], nil) }
        return try await database.read { db in
            let sql = SQLQueryString(
                """
                SELECT * FROM photos WHERE uploader_id IN (\(binds: uploaderIDs)) AND event_id IN (\(binds: eventIDs))
                    AND status <> 'failed' AND kind <> 'note'
                """)
            return try await Self.newestFirst(sql, by: .uploaded, after: cursor, limit: limit, in: db)
        }
    }

    /// The ready posts a viewer may see, oldest first, for the event's download: its photos and videos (files), or
    /// with `notes` its guestbook's notes (no file: the download writes them out as text).
    package func visible(eventID: String, to visibility: PhotoVisibility, notes: Bool = false) async throws -> [Photo] {
        try await database.sql { db in
            var sql = SQLQueryString("SELECT * FROM photos WHERE event_id = \(bind: eventID) AND status = 'ready' AND ")
            sql.appendInterpolation(unsafeRaw: notes ? "kind = 'note' AND " : "kind <> 'note' AND ")
            sql += visibility.sqlCondition
            sql.appendInterpolation(unsafeRaw: " ORDER BY uploaded_at, id")
            return try await db.raw(sql).all().map(Self.photo(from:))
        }
    }

    /// Everything these uploaders sent that is kept (not failed), oldest first: a person's export and erasure.
    package func kept(uploadedBy uploaderIDs: [String]) async throws -> [Photo] {
        guard !uploaderIDs.isEmpty else { return [] }
        return try await database.read { db in
            try await db.raw(
                "SELECT * FROM photos WHERE uploader_id IN (\(binds: uploaderIDs)) AND status <> 'failed' ORDER BY uploaded_at, id"
            ).all().map(Self.photo(from:))
        }
    }

    /// What a recap chooses from (CAP-1): the photos every guest of the event sees — ready, approved, taken with a
    /// camera or sent from a library (not notes, drawings or videos) — with their measures.
    package func recapCandidates(eventID: String) async throws -> [(photo: Photo, signals: PhotoSignals?)] {
        try await database.read { db in
            try await db.raw("SELECT * FROM photos WHERE event_id = \(bind: eventID) AND \(Self.recapCondition)").all().map { row in
                (try Self.photo(from: row), PhotoSignals(stored: try row.decode(column: "signals", as: String?.self)))
            }
        }
    }

    /// Whether the event has one photo its recap could show (`ClockAnnouncer` tells everyone only then).
    package static func hasRecapPhotos(eventID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw("SELECT 1 AS one FROM photos WHERE event_id = \(bind: eventID) AND \(recapCondition) LIMIT 1").first() != nil
    }

    private static var recapCondition: SQLQueryString {
        "\(PhotoVisibility.shownToEveryone) AND kind = 'photo' AND source <> 'drawing'"
    }

    /// Photos waiting for the reveal: everything stored that did not fail.
    package func developingCount(eventID: String) async throws -> Int {
        try await database.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM photos WHERE event_id = \(bind: eventID) AND status <> 'failed'")
                .first()!.decode(column: "n", as: Int.self)
        }
    }

    /// Who has a ready photo or note awaiting the organizer's approval (ORG-4): they see it in the gallery, nobody
    /// else does.
    package func uploadersAwaitingApproval(eventID: String) async throws -> Set<String> {
        try await database.read { db in
            Set(
                try await db.raw("SELECT DISTINCT uploader_id FROM photos WHERE event_id = \(bind: eventID) AND status = 'ready' AND NOT approved")
                    .all().map { try $0.decode(column: "uploader_id", as: String.self) })
        }
    }

    /// The raw facts behind the organizer's stats (ORG-2).
    package func all(eventID: String) async throws -> [Photo] {
        try await database.sql { db in
            try await db.raw("SELECT * FROM photos WHERE event_id = \(bind: eventID) ORDER BY uploaded_at, id").all().map(Self.photo(from:))
        }
    }

    /// How many of the event's guests took at least one photo (organizers' own shots aside).
    package func guestsWhoShot(eventID: String) async throws -> Int {
        try await database.read { db in
            try await db.raw(
                """
                SELECT COUNT(DISTINCT p.uploader_id) AS n FROM photos p JOIN guests g ON g.id = p.uploader_id
                WHERE p.event_id = \(bind: eventID) AND p.status <> 'failed'
                """
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    package func storedBytes(eventID: String) async throws -> Int64 {
        try await database.sql { db in
            try await db.raw(
                "SELECT CAST(COALESCE(SUM(byte_size + derivative_bytes), 0) AS BIGINT) AS bytes FROM photos WHERE event_id = \(bind: eventID) AND status <> 'failed'"
            ).first()!.decode(column: "bytes", as: Int64.self)
        }
    }
}
