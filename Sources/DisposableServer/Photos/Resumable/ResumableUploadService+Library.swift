import DisposableAPI
import Foundation
import NIOPosix
import SQLKit

/// Resumable uploads into the uploader's own library (LIB-1, `target` `library`): a signed-in account only, no shot to
/// hold; the finished file becomes an asset through the same path as a plain upload (`LibraryService.record`).
extension ResumableUploadService {
    func createInLibrary(length: Int64, metadata: UploadMetadata, header: String?, for identity: Identity?) async throws -> ResumableUpload {
        guard let identity else { throw Problem.unauthorized }
        guard case .user(let user, _) = identity else {
            throw Problem(
                .forbidden, "account-required", title: "Account required", detail: "Sign in (or create an account) to keep files in your own library."
            )
        }
        guard let library else { throw Problem.notFound("This server has no libraries.") }
        let key = metadata.values["idempotencyKey"]
        if let key, !(1...128).contains(key.utf8.count) || !key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw Problem.badRequest("The idempotencyKey in Upload-Metadata must be 1 to 128 visible ASCII characters.", field: "Upload-Metadata")
        }
        guard length > 0 else { throw Problem(.unprocessableContent, "empty-file", title: "Empty file", detail: "The file is empty.") }
        guard length <= library.maxBytes else { throw Problem.photoTooLarge(library.maxBytes) }
        try await library.checkQuota(of: user.id, adding: length)
        try await makeRoom(uploaderID: user.id, idempotencyKey: key)
        let id = newID()
        let now = clock.now
        let path = try await createFile(id)
        let room = Room(uploaderID: user.id, accountID: user.id, length: length)
        do {
            try await database.transaction { db in
                try await admit(room, byOrganizer: true, now: now, in: db)
                try await db.raw(
                    """
                    INSERT INTO resumable_uploads (id, event_id, uploader_id, guest_id, length, received, idempotency_key, source,
                        metadata, created_at, expires_at, target)
                    VALUES (\(bind: id), '', \(bind: user.id), NULL, \(bind: length), 0, \(bind: key), 'library', \(bind: header ?? ""),
                        \(bind: now.millisecondsSince1970), \(bind: (now + Self.lifetime).millisecondsSince1970), 'library')
                    """
                ).run()
            }
        } catch {
            unlink(path)
            throw error
        }
        return try await find(id)!
    }

    /// The last byte is in: the file becomes an asset of the uploader's library (or the one its key made before).
    func finishInLibrary(_ upload: ResumableUpload, _ user: User) async throws -> Progress {
        guard let library else { throw Problem.uploadGone }
        let metadata = try? UploadMetadata(header: upload.metadata)
        let request = LibraryService.UploadRequest(
            idempotencyKey: upload.idempotencyKey, takenAt: nil, fileName: metadata?.values["filename"], declaredLength: upload.length)
        let asset: LibraryAsset
        do {
            if let key = upload.idempotencyKey, let existing = try await library.assets.find(userID: user.id, idempotencyKey: key) {
                asset = existing
            } else {
                let staged = try await stage(upload)
                defer { staged.discard() }
                switch try await library.record(staged, request, for: user.id) {
                case .created(let made), .existing(let made): asset = made
                }
            }
        } catch {
            // Refused (not a photo or video, a duplicate, over quota): the upload is over.
            try await end(upload)
            throw error
        }
        return try await finished(upload, as: Made(id: asset.id, location: "/api/v1/library/assets/\(asset.id)"))
    }

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
