import DisposableAPI
import Foundation
import NIOPosix
import SQLKit

/// The room an upload takes before its first byte: a place among its sender's unfinished uploads, its announced
/// length on an account's quota and on the server's disk, and its empty file.
extension ResumableUploadService {
    /// Before a new upload: the same file begun again (a client that crashed before it remembered where its upload
    /// was) gives way, with its held shot, rather than holding it for a day.
    func makeRoom(uploaderID: String, idempotencyKey key: String?) async throws {
        if let key, let previous = try await unfinished(uploaderID: uploaderID, idempotencyKey: key) {
            await locks.stopHolder(previous.id)
            try await end(previous)
        }
    }

    /// What a new upload asks for: a place among its sender's unfinished uploads, and its announced length on the
    /// account it will count against (the event's organizer, or the library's owner) and on the server's disk.
    struct Room: Sendable {
        let uploaderID: String
        let accountID: String
        let length: Int64
    }

    /// Admits a new upload in the transaction that inserts it (issue 37, item 4): a sender has at most 20 under
    /// way; the announced lengths of an account's unfinished uploads count against its quota as if stored, so
    /// uploads left one byte short cannot hold more than the quota; all of them together stay under
    /// `--max-staged-gb`. On PostgreSQL the admissions take turns (an advisory lock), so parallel creations
    /// cannot all see the same free room.
    func admit(_ room: Room, byOrganizer: Bool, now: Date, in db: any SQLDatabase) async throws {
        if database.kind == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(74042028)").run() }
        let live = SQLQueryString("r.photo_id IS NULL AND r.expires_at > \(bind: now.millisecondsSince1970)")
        let unfinished =
            try await db.raw(
                "SELECT COUNT(*) AS n FROM resumable_uploads r WHERE r.uploader_id = \(bind: room.uploaderID) AND \(live)"
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        guard unfinished < Self.maxUnfinished else {
            throw Problem(
                .forbidden, "too-many-uploads", title: "Too many uploads under way",
                detail: "You have \(unfinished) uploads under way: finish or cancel some before starting another.")
        }
        func announced(_ condition: SQLQueryString) async throws -> Int64 {
            try await db.raw(
                """
                SELECT CAST(COALESCE(SUM(r.length), 0) AS BIGINT) AS n FROM resumable_uploads r LEFT JOIN events e ON e.id = r.event_id
                WHERE \(live) AND \(condition)
                """
            ).first()?.decode(column: "n", as: Int64.self) ?? 0
        }
        let account = try await announced(
            "(CASE WHEN r.target = 'library' THEN r.uploader_id ELSE e.organizer_id END) = \(bind: room.accountID)")
        if let usage = try await Quota.usage(userID: room.accountID, in: db), !usage.fits(account + room.length) {
            throw Quota.exceeded(Quota.Usage(used: usage.used + account, allowed: usage.allowed, own: usage.own), byOrganizer: byOrganizer)
        }
        guard try await announced("1 = 1") + room.length <= maxStagedBytes else {
            throw Problem(
                .init(code: 507, reasonPhrase: "Insufficient Storage"), "staging-full", title: "Server busy",
                detail: "The server is receiving too many large uploads right now. Try again later; nothing was kept.")
        }
    }

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
