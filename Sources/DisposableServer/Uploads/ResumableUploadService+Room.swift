import DisposableAPI
import Foundation
import NIOPosix
import SQLKit

/// The room an unfinished upload takes: a place among its sender's unfinished uploads, its announced length on an
/// account's quota, and bytes on the server's staging disk — counted by what it *holds* (what it received plus a
/// bounded allowance, raised while a PATCH streams), never by what it announced, and capped per sender, per
/// network and per event, so that one guest's announcements cannot refuse everyone else's uploads.
extension ResumableUploadService {
    /// What an upload may hold beyond what it received before a PATCH asks for more.
    static let allowance: Int64 = 16 << 20
    /// An upload no PATCH began this long after its creation is given up (its shot back, its room free).
    static let idleLimit: TimeInterval = 300

    /// Before a new upload: the same file begun again (a client that crashed before it remembered where its upload
    /// was) gives way, with its held shot, rather than holding it for a day.
    func makeRoom(uploaderID: String, idempotencyKey key: String?) async throws {
        if let key, let previous = try await unfinished(uploaderID: uploaderID, idempotencyKey: key) {
            await locks.stopHolder(previous.id)
            try await end(previous)
        }
    }

    /// What a new upload asks for.
    struct Room: Sendable {
        let uploaderID: String
        let accountID: String
        /// The event it goes to; empty for a library.
        let eventID: String
        /// The sender's network (`IPAddress.network`).
        let network: String
        let length: Int64
    }

    /// What unfinished uploads may hold on the staging disk at once: all of them (`--max-staged-gb`), one sender's,
    /// one network's, one event's. A sender may always hold one file of the largest size taken (up to a quarter of
    /// the whole).
    struct StagingCaps: Sendable {
        let instance: Int64
        let sender: Int64
        let network: Int64
        let event: Int64

        init(maxStaged: Int64, largestFile: Int64) {
            instance = maxStaged
            sender = max(maxStaged / 10, min(largestFile + ResumableUploadService.allowance, maxStaged / 4))
            network = max(maxStaged / 5, sender)
            event = max(maxStaged / 4, sender)
        }
    }

    var caps: StagingCaps { StagingCaps(maxStaged: maxStagedBytes, largestFile: maxBytes) }

    /// Rows of unfinished uploads still under way at `now`.
    static func live(_ now: Date) -> SQLQueryString {
        let ms = now.millisecondsSince1970
        return """
            r.photo_id IS NULL AND r.expires_at > \(bind: ms)
            AND (r.patched_at IS NOT NULL OR r.received > 0 OR r.created_at > \(bind: ms - Int64(idleLimit * 1000)))
            """
    }

    /// Admits a new upload in the transaction that inserts it: a sender has at most 20 under way; the announced
    /// lengths of an account's unfinished uploads count against its quota as if stored (uploads left one byte short
    /// cannot hold more than the quota); its first allowance must fit every staging cap. On PostgreSQL the
    /// admissions take turns (an advisory lock), so parallel creations cannot all see the same free room.
    func admit(_ room: Room, byOrganizer: Bool, now: Date, in db: any SQLDatabase) async throws {
        if database.kind == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(74042028)").run() }
        let live = Self.live(now)
        let unfinished =
            try await db.raw(
                "SELECT COUNT(*) AS n FROM resumable_uploads r WHERE r.uploader_id = \(bind: room.uploaderID) AND \(live)"
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        guard unfinished < Self.maxUnfinished else {
            throw Problem(
                .forbidden, "too-many-uploads", title: "Too many uploads under way",
                detail: "You have \(unfinished) uploads under way: finish or cancel some before starting another.")
        }
        let announced =
            try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(r.length), 0) AS BIGINT) AS n FROM resumable_uploads r LEFT JOIN events e ON e.id = r.event_id
                WHERE \(live) AND (CASE WHEN r.target = 'library' THEN r.uploader_id ELSE e.organizer_id END) = \(bind: room.accountID)
                """
            ).first()?.decode(column: "n", as: Int64.self) ?? 0
        if let usage = try await Quota.usage(userID: room.accountID, in: db), !usage.fits(announced + room.length) {
            throw Quota.exceeded(Quota.Usage(used: usage.used + announced, allowed: usage.allowed, own: usage.own), byOrganizer: byOrganizer)
        }
        let held = try await Self.held(besides: nil, uploaderID: room.uploaderID, network: room.network, eventID: room.eventID, now: now, in: db)
        try check(held, adding: min(room.length, Self.allowance))
    }

    /// Before a PATCH's bytes: raises what the upload holds to as much of its length as the caps leave free (in a
    /// transaction that takes turns with admissions); the PATCH may write up to what it then holds.
    func grant(_ upload: ResumableUpload) async throws -> Int64 {
        let now = clock.now
        let caps = caps
        return try await database.transaction { [database] db in
            if database.kind == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(74042028)").run() }
            let others = try await Self.held(
                besides: upload.id, uploaderID: upload.uploaderID, network: upload.network, eventID: upload.target == "library" ? "" : upload.placeID,
                now: now, in: db)
            let free = min(
                caps.instance - others.instance, caps.sender - others.sender, caps.network - others.network, caps.event - others.event)
            // Never less than it held already: the caps bound what others may add, not what this one had.
            let held = min(upload.length, max(upload.held, free))
            try await db.raw(
                """
                UPDATE resumable_uploads SET held = \(bind: held), patched_at = COALESCE(patched_at, \(bind: now.millisecondsSince1970))
                WHERE id = \(bind: upload.id)
                """
            ).run()
            return held
        }
    }

    /// What unfinished uploads hold now, besides `id`: on the whole disk, by this sender, network and event.
    private static func held(besides id: String?, uploaderID: String, network: String, eventID: String, now: Date, in db: any SQLDatabase)
        async throws -> (instance: Int64, sender: Int64, network: Int64, event: Int64)
    {
        let row = try await db.raw(
            """
            SELECT CAST(COALESCE(SUM(r.held), 0) AS BIGINT) AS instance,
                CAST(COALESCE(SUM(CASE WHEN r.uploader_id = \(bind: uploaderID) THEN r.held ELSE 0 END), 0) AS BIGINT) AS sender,
                CAST(COALESCE(SUM(CASE WHEN r.network = \(bind: network) THEN r.held ELSE 0 END), 0) AS BIGINT) AS network,
                CAST(COALESCE(SUM(CASE WHEN r.target <> 'library' AND r.event_id = \(bind: eventID) THEN r.held ELSE 0 END), 0) AS BIGINT) AS event
            FROM resumable_uploads r WHERE \(live(now)) AND r.id <> \(bind: id ?? "")
            """
        ).first()
        let value = { (column: String) in try row?.decode(column: column, as: Int64.self) ?? 0 }
        return (try value("instance"), try value("sender"), try value("network"), try value("event"))
    }

    private func check(_ held: (instance: Int64, sender: Int64, network: Int64, event: Int64), adding bytes: Int64) throws {
        let caps = caps
        guard held.instance + bytes <= caps.instance else { throw Self.stagingFull }
        guard held.sender + bytes <= caps.sender, held.network + bytes <= caps.network, held.event + bytes <= caps.event else {
            throw Self.ownShareFull
        }
    }

    static let stagingFull = Problem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), "staging-full", title: "Server busy",
        detail: "The server is receiving too many large uploads right now. Try again later; nothing was kept.")

    static let ownShareFull = Problem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), "staging-full", title: "Too much under way",
        detail: "Too many large uploads from you, your network or this event are under way: let some finish, then try again.")

    /// The upload's empty file, durably, before its row: a row never points at a file that cannot be.
    func createFile(_ id: String) async throws -> String {
        let path = file(id).path
        try await NIOThreadPool.singleton.runIfActive {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try DurableFiles.check(fd, "open upload file")
            close(fd)
            try DurableFiles.syncDirectory(of: path)
        }
        return path
    }
}
