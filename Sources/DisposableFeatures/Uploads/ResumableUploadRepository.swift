import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `resumable_uploads` table (`ResumableUploadService` holds the rules): unfinished uploads, what each holds on
/// the staging disk, and the shot a guest's upload holds — taken and given back with the rows that hold it.
struct ResumableUploadRepository: Sendable {
    package let database: Database

    /// A new upload's row.
    package struct NewUpload: Sendable {
        package let id: String
        package let placeID: String
        package let uploaderID: String
        package let guestID: String?
        package let length: Int64
        package let idempotencyKey: String?
        package let source: String
        package let metadata: String
        package let createdAt: Date
        package let expiresAt: Date
        package let target: String
        package let held: Int64
        package let network: String

        package init(
            id: String, placeID: String, uploaderID: String, guestID: String?, length: Int64, idempotencyKey: String?, source: String,
            metadata: String, createdAt: Date, expiresAt: Date, target: String, held: Int64, network: String
        ) {
            self.id = id
            self.placeID = placeID
            self.uploaderID = uploaderID
            self.guestID = guestID
            self.length = length
            self.idempotencyKey = idempotencyKey
            self.source = source
            self.metadata = metadata
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.target = target
            self.held = held
            self.network = network
        }
    }

    /// What unfinished uploads hold, on the whole disk and by one sender, network and event, and by that network in
    /// that event.
    package struct Held: Sendable {
        package let instance: Int64
        package let sender: Int64
        package let network: Int64
        package let event: Int64
        package let networkInEvent: Int64
    }

    /// Admissions and grants one at a time until the caller's transaction ends (PostgreSQL: an advisory lock; SQLite's
    /// single writer is alone already), so parallel ones cannot all see the same free room.
    package func takeTurn(in db: any SQLDatabase) async throws {
        if database.kind == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(74042028)").run() }
    }

    /// Rows of unfinished uploads still under way at `now`: not finished, not expired, begun or young, and sent by
    /// a guest still in the event. An upload no PATCH began `idle` after its creation is given up; a removed guest's
    /// hold nothing from the moment they are removed.
    package static func live(_ now: Date, idle: TimeInterval) -> SQLQueryString {
        let ms = now.millisecondsSince1970
        return """
            r.photo_id IS NULL AND r.expires_at > \(bind: ms)
            AND (r.patched_at IS NOT NULL OR r.received > 0 OR r.created_at > \(bind: ms - Int64(idle * 1000)))
            AND NOT EXISTS (SELECT 1 FROM guests g WHERE (g.id = r.uploader_id OR g.id = r.guest_id) AND g.left_at IS NOT NULL)
            """
    }

    package static func unfinishedCount(uploaderID: String, live: SQLQueryString, in db: any SQLDatabase) async throws -> Int {
        try await db.raw("SELECT COUNT(*) AS n FROM resumable_uploads r WHERE r.uploader_id = \(bind: uploaderID) AND \(live)")
            .first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// The lengths announced by an account's unfinished uploads (to its library, or to events it organises).
    package static func announcedLength(accountID: String, live: SQLQueryString, in db: any SQLDatabase) async throws -> Int64 {
        try await db.raw(
            """
            SELECT CAST(COALESCE(SUM(r.length), 0) AS BIGINT) AS n FROM resumable_uploads r LEFT JOIN events e ON e.id = r.event_id
            WHERE \(live) AND (CASE WHEN r.target = 'library' THEN r.uploader_id ELSE e.organizer_id END) = \(bind: accountID)
            """
        ).first()?.decode(column: "n", as: Int64.self) ?? 0
    }

    /// What the account uses of its quota, read in the admission's transaction.
    package static func usage(accountID: String, in db: any SQLDatabase) async throws -> Quota.Usage? {
        try await UserRepository.usage(userID: accountID, in: db)
    }

    /// What unfinished uploads hold now, besides `id`.
    package static func held(
        besides id: String?, uploaderID: String, network: String, eventID: String, live: SQLQueryString, in db: any SQLDatabase
    ) async throws -> Held {
        let row = try await db.raw(
            """
            SELECT CAST(COALESCE(SUM(r.held), 0) AS BIGINT) AS instance,
                CAST(COALESCE(SUM(CASE WHEN r.uploader_id = \(bind: uploaderID) THEN r.held ELSE 0 END), 0) AS BIGINT) AS sender,
                CAST(COALESCE(SUM(CASE WHEN r.network = \(bind: network) THEN r.held ELSE 0 END), 0) AS BIGINT) AS network,
                CAST(COALESCE(SUM(CASE WHEN r.target <> 'library' AND r.event_id = \(bind: eventID) THEN r.held ELSE 0 END), 0) AS BIGINT) AS event,
                CAST(COALESCE(SUM(
                    CASE WHEN r.target <> 'library' AND r.event_id = \(bind: eventID) AND r.network = \(bind: network) THEN r.held ELSE 0 END
                ), 0) AS BIGINT) AS network_in_event
            FROM resumable_uploads r WHERE \(live) AND r.id <> \(bind: id ?? "")
            """
        ).first()
        let value = { (column: String) in try row?.decode(column: column, as: Int64.self) ?? 0 }
        return Held(
            instance: try value("instance"), sender: try value("sender"), network: try value("network"), event: try value("event"),
            networkInEvent: try value("network_in_event"))
    }

    /// Holds one of the guest's shots for the upload; false when none is left.
    package static func reserveShot(guestID: String, shotsPerGuest: Int, in db: any SQLDatabase) async throws -> Bool {
        try await GuestRepository.reserveShot(guestID: guestID, shotsPerGuest: shotsPerGuest, in: db)
    }

    package static func insert(_ upload: NewUpload, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO resumable_uploads (id, event_id, uploader_id, guest_id, length, received, idempotency_key, source,
                metadata, created_at, expires_at, target, held, network)
            VALUES (\(bind: upload.id), \(bind: upload.placeID), \(bind: upload.uploaderID), \(bind: upload.guestID),
                \(bind: upload.length), 0, \(bind: upload.idempotencyKey), \(bind: upload.source), \(bind: upload.metadata),
                \(bind: upload.createdAt.millisecondsSince1970), \(bind: upload.expiresAt.millisecondsSince1970), \(bind: upload.target),
                \(bind: upload.held), \(bind: upload.network))
            """
        ).run()
    }

    /// What the upload holds from now, since when its bytes began to arrive, and until when it waits for them.
    package static func setHeld(_ id: String, held: Int64, now: Date, expiresAt: Date, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE resumable_uploads SET held = \(bind: held), patched_at = COALESCE(patched_at, \(bind: now.millisecondsSince1970)),
                expires_at = \(bind: expiresAt.millisecondsSince1970)
            WHERE id = \(bind: id)
            """
        ).run()
    }

    /// Records what is durable (fsynced), what the upload holds from now, and until when it waits for more.
    package func recordReceived(_ id: String, received: Int64, held: Int64, expiresAt: Date) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                UPDATE resumable_uploads SET received = \(bind: received), held = \(bind: held),
                    expires_at = \(bind: expiresAt.millisecondsSince1970)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// Moves the upload's expiry while its bytes arrive.
    package func extend(_ id: String, until expiresAt: Date) async throws {
        try await database.sql { db in
            try await db.raw("UPDATE resumable_uploads SET expires_at = \(bind: expiresAt.millisecondsSince1970) WHERE id = \(bind: id)").run()
        }
    }

    /// What the upload became; the shot it held is the photo's now.
    package func markFinished(_ id: String, madeID: String) async throws {
        try await database.sql { db in
            try await db.raw("UPDATE resumable_uploads SET photo_id = \(bind: madeID), guest_id = NULL WHERE id = \(bind: id)").run()
        }
    }

    /// Gives a held shot back (the upload turned out to be a photo already there).
    package func releaseShot(guestID: String) async throws {
        try await database.sql { db in try await GuestRepository.releaseShot(guestID: guestID, in: db) }
    }

    /// Removes the upload's row and gives back the shot it held, in one transaction.
    package func remove(_ id: String) async throws {
        try await database.transaction { db in
            let removed = try await db.raw("DELETE FROM resumable_uploads WHERE id = \(bind: id) RETURNING guest_id").first()
            if let guestID = try removed?.decode(column: "guest_id", as: String?.self) {
                try await GuestRepository.releaseShot(guestID: guestID, in: db)
            }
        }
    }

    /// Uploads past their expiry, those left empty since before `idleSince`, and unfinished ones of guests who left
    /// or were removed.
    package func due(now: Date, idleSince: Date) async throws -> [ResumableUpload] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM resumable_uploads r
                WHERE r.expires_at <= \(bind: now.millisecondsSince1970)
                    OR (r.photo_id IS NULL AND r.received = 0 AND r.patched_at IS NULL
                        AND r.created_at <= \(bind: idleSince.millisecondsSince1970))
                    OR (r.photo_id IS NULL
                        AND EXISTS (SELECT 1 FROM guests g WHERE (g.id = r.uploader_id OR g.id = r.guest_id) AND g.left_at IS NOT NULL))
                """
            ).all().map(ResumableUpload.init(row:))
        }
    }

    package func find(_ id: String) async throws -> ResumableUpload? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM resumable_uploads WHERE id = \(bind: id)").first().map(ResumableUpload.init(row:))
        }
    }

    package func unfinished(uploaderID: String, idempotencyKey: String) async throws -> ResumableUpload? {
        try await database.sql { db in
            try await db.raw(
                """
                SELECT * FROM resumable_uploads
                WHERE uploader_id = \(bind: uploaderID) AND idempotency_key = \(bind: idempotencyKey) AND photo_id IS NULL
                """
            ).first().map(ResumableUpload.init(row:))
        }
    }
}
