import Crypto
import DisposableAPI
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import SQLKit

/// Resumable uploads (UP-4, tus 1.0): a photo sent in as many requests as the connection needs. Its bytes go to
/// a file of its own, fsynced before each offset is acknowledged; when the last byte is in, it becomes a photo
/// through the same path as a plain upload (`PhotoService.record`). A guest's shot is held from the creation
/// (`ShotLimit.reserve`) and given back when the upload is ended, expires or turns out to be there already, so
/// the shot limit (UP-2) stays exact with uploads under way.
struct ResumableUploadService: Sendable {
    let database: any DatabaseEngine
    let photos: PhotoService
    let directory: URL
    let locks: UploadLocks
    let clock: any AppClock
    /// What unfinished uploads may announce, all senders together.
    let maxStagedBytes: Int64
    /// How long an upload may take, from its creation: bytes trickled in never extend it.
    static let lifetime: TimeInterval = 24 * 3600
    /// Uploads one sender may have under way at once: each holds a file (and maybe a shot) for up to a day.
    static let maxUnfinished = 20

    enum Checksum: Sendable {
        case sha1(Data), sha256(Data)

        /// `Upload-Checksum: sha1 BASE64` (or sha256).
        init?(header: String) throws {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let digest = Data(base64Encoded: String(parts[1])) else {
                throw Problem.badRequest("Upload-Checksum must be an algorithm and a base64 digest.", field: "Upload-Checksum")
            }
            switch parts[0].lowercased() {
            case "sha1": self = .sha1(digest)
            case "sha256": self = .sha256(digest)
            default: throw Problem.badRequest("Upload-Checksum's algorithm must be sha1 or sha256.", field: "Upload-Checksum")
            }
        }
    }

    /// What a PATCH (or a creation with its first bytes) ended with.
    struct Progress: Sendable {
        let upload: ResumableUpload
        /// The photo or library asset, once the last byte made one.
        let made: Made?
    }

    struct Made: Sendable {
        let id: String
        /// Its address in the API.
        let location: String
    }

    /// Where an upload goes: a guest's or member's shot into an event, or a file into the uploader's own library.
    enum Destination: Sendable {
        case event(PhotoService.Shooting)
        case library(User)
    }

    init(
        database: any DatabaseEngine, photos: PhotoService, library: LibraryService? = nil, directory: URL,
        maxStagedBytes: Int64 = 10_000_000_000, clock: any AppClock
    ) throws {
        self.database = database
        self.maxStagedBytes = maxStagedBytes
        self.photos = photos
        self.library = library
        self.directory = directory
        self.clock = clock
        locks = UploadLocks()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The library, for uploads to it (`target` `library`).
    let library: LibraryService?

    /// The largest upload this server takes (a library video's limit, where videos are kept).
    var maxBytes: Int64 { max(photos.limits.maxBytes, library?.maxBytes ?? 0) }

    /// `target`: `event:<id>` or `library` (the older `event` key names an event too).
    private static func destination(_ metadata: UploadMetadata) throws -> String? {
        guard let target = metadata.values["target"] else { return metadata.values["event"].map { "event:" + $0 } }
        guard target == "library" || (target.hasPrefix("event:") && target.count > 6) else {
            throw Problem.badRequest("The target in Upload-Metadata must be “library” or “event:” and the event's id.", field: "Upload-Metadata")
        }
        return target
    }

    // MARK: - Creation

    /// Creates an upload of `length` bytes into what its metadata names (`target`: `event:<id>` or `library`;
    /// `idempotencyKey`, `source`, `filename` optional), holding a guest's shot for it.
    func create(length: Int64, metadataHeader: String?, for identity: Identity?) async throws -> ResumableUpload {
        let metadata = try UploadMetadata(header: metadataHeader)
        guard let target = try Self.destination(metadata) else {
            var problem = Problem(
                .unprocessableContent, "upload-target-missing", title: "Where to?",
                detail: "Name where the upload goes in Upload-Metadata: “target” and, in base64, “library” or “event:” and the event's id.")
            problem.extensions["field"] = "Upload-Metadata"
            throw problem
        }
        if target == "library" { return try await createInLibrary(length: length, metadata: metadata, header: metadataHeader, for: identity) }
        let eventID = String(target.dropFirst("event:".count))
        let source = try metadata.values["source"].map { raw in
            // Drawings are small and sent whole (`POST …/photos` with `X-Photo-Source: drawing`).
            guard let source = PhotoSource(rawValue: raw), source != .drawing else {
                throw Problem.badRequest("The source in Upload-Metadata must be “camera” or “library”.", field: "Upload-Metadata")
            }
            return source
        }
        let key = metadata.values["idempotencyKey"]
        if let key, !(1...128).contains(key.utf8.count) || !key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw Problem.badRequest("The idempotencyKey in Upload-Metadata must be 1 to 128 visible ASCII characters.", field: "Upload-Metadata")
        }
        let shooting = try await photos.shooting(into: eventID, for: identity)
        try photos.checkSource(source ?? .library, shooting)
        guard length > 0 else {
            throw Problem(.unprocessableContent, "empty-file", title: "Empty file", detail: "The file is empty.")
        }
        let maxBytes = photos.maxBytes(for: shooting.event)
        guard length <= maxBytes else { throw Problem.photoTooLarge(maxBytes) }
        try await photos.checkQuota(of: shooting.event, uploader: shooting.uploader, adding: length)

        try await makeRoom(uploaderID: shooting.uploader.id, idempotencyKey: key)
        let id = newID()
        let now = clock.now
        let guestID: String? = if case .guest(let guest, _) = shooting.uploader { guest.id } else { nil }
        let path = try await createFile(id)
        let room = Room(uploaderID: shooting.uploader.id, accountID: shooting.event.organizerID, length: length)
        do {
            try await database.transaction { db in
                try await admit(room, byOrganizer: shooting.uploader.isOrganizer, now: now, in: db)
                if case .guest(let guest, let shots) = shooting.uploader {
                    guard try await ShotLimit.reserve(guestID: guest.id, shotsPerGuest: shots, in: db) else {
                        throw ShotLimit.reached(shots)
                    }
                }
                try await db.raw(
                    """
                    INSERT INTO resumable_uploads (id, event_id, uploader_id, guest_id, length, received, idempotency_key, source,
                        metadata, created_at, expires_at)
                    VALUES (\(bind: id), \(bind: eventID), \(bind: shooting.uploader.id), \(bind: guestID), \(bind: length), 0,
                        \(bind: key), \(bind: (source ?? .library).rawValue), \(bind: metadataHeader ?? ""),
                        \(bind: now.millisecondsSince1970), \(bind: (now + Self.lifetime).millisecondsSince1970))
                    """
                ).run()
            }
        } catch {
            unlink(path)
            throw error
        }
        return try await find(id)!
    }

    // MARK: - Reading where it stands

    /// The caller's upload, after stopping a PATCH that may still hold it (HEAD).
    func current(_ id: String, for identity: Identity?) async throws -> ResumableUpload {
        let (upload, _) = try await owned(id, by: identity)
        await locks.stopHolder(id)
        return try await find(id) ?? upload
    }

    // MARK: - Appending

    /// Appends a PATCH's body at `offset`: one PATCH at a time (423), at the offset the server has (409), checked
    /// against `checksum` when given (460, nothing kept). Bytes are fsynced before the new offset is recorded; a body
    /// cut short keeps what arrived (without a checksum). The last byte makes the photo.
    func append(_ id: String, offset: Int64, body: RequestBody, checksum: Checksum?, for identity: Identity?) async throws -> Progress {
        let (upload, destination) = try await owned(id, by: identity)
        let stopper = Stopper()
        guard let token = await locks.acquire(id, stop: stopper.stop) else {
            throw Problem(
                .init(code: 423, reasonPhrase: "Locked"), "upload-locked", title: "Upload busy",
                detail: "This upload is receiving bytes from another request; ask where it stands (HEAD) and continue from there.")
        }
        do {
            let progress = try await appendLocked(upload, destination, offset: offset, body: body, checksum: checksum, stopper: stopper)
            await locks.release(id, token: token)
            return progress
        } catch {
            await locks.release(id, token: token)
            throw error
        }
    }

    private func appendLocked(
        _ upload: ResumableUpload, _ destination: Destination, offset: Int64, body: RequestBody, checksum: Checksum?, stopper: Stopper
    ) async throws -> Progress {
        guard upload.photoID == nil, !upload.isComplete else {
            throw Problem(.conflict, "upload-complete", title: "Upload complete", detail: "This upload already has all its bytes.")
        }
        guard offset == upload.received else {
            throw Problem(
                .conflict, "upload-offset-mismatch", title: "Wrong offset",
                detail: "This upload has \(upload.received) bytes; send from there (Upload-Offset: \(upload.received)).")
        }
        // The body is read by a task of its own, which a HEAD may cancel (`UploadLocks.stopHolder`).
        let task = Task { try await self.receive(body, into: upload, checksum: checksum) }
        stopper.set { task.cancel() }
        let count = try await task.value
        let received = upload.received + count
        try await database.sql { db in
            try await db.raw("UPDATE resumable_uploads SET received = \(bind: received) WHERE id = \(bind: upload.id)").run()
        }
        let updated = try await find(upload.id) ?? upload
        guard updated.isComplete else { return Progress(upload: updated, made: nil) }
        switch destination {
        case .event(let shooting): return try await finish(updated, shooting)
        case .library(let user): return try await finishInLibrary(updated, user)
        }
    }

    /// Writes the body after the durable bytes; returns how many it kept (all of them, fsynced).
    private func receive(_ body: RequestBody, into upload: ResumableUpload, checksum: Checksum?) async throws -> Int64 {
        let path = file(upload.id).path
        let start = upload.received
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Problem.uploadGone }
        defer { close(fd) }
        // Bytes past the recorded offset were never acknowledged (a crash between write and record): drop them.
        try DurableFiles.check(ftruncate(fd, off_t(start)), "ftruncate")
        guard lseek(fd, off_t(start), SEEK_SET) >= 0 else { throw DurableFiles.error("lseek") }
        var sha1 = Insecure.SHA1()
        var sha256 = SHA256()
        var count: Int64 = 0
        var pending = ByteBuffer()
        var interrupted: (any Error)? = nil
        do {
            for try await chunk in body {
                if Task.isCancelled { break }
                count += Int64(chunk.readableBytes)
                guard start + count <= upload.length else {
                    throw Problem(
                        .contentTooLarge, "upload-too-long", title: "More than announced",
                        detail: "This upload was announced as \(upload.length) bytes; the body goes past that.")
                }
                if let checksum {
                    switch checksum {
                    case .sha1: chunk.withUnsafeReadableBytes { sha1.update(bufferPointer: $0) }
                    case .sha256: chunk.withUnsafeReadableBytes { sha256.update(bufferPointer: $0) }
                    }
                }
                pending.writeImmutableBuffer(chunk)
                if pending.readableBytes >= 512 * 1024 {
                    let batch = pending
                    try await NIOThreadPool.singleton.runIfActive { try batch.withUnsafeReadableBytes { try DurableFiles.writeAll(fd, $0) } }
                    pending.clear()
                }
            }
        } catch let problem as Problem {
            try? DurableFiles.check(ftruncate(fd, off_t(start)), "ftruncate")
            throw problem
        } catch {
            interrupted = error  // the connection dropped: keep what arrived, as tus allows
        }
        if let checksum {
            let matches: Bool
            switch checksum {
            case .sha1(let expected): matches = interrupted == nil && Data(sha1.finalize()) == expected
            case .sha256(let expected): matches = interrupted == nil && Data(sha256.finalize()) == expected
            }
            guard matches else {
                try DurableFiles.check(ftruncate(fd, off_t(start)), "ftruncate")
                throw Problem(
                    .init(code: 460, reasonPhrase: "Checksum Mismatch"), "checksum-mismatch", title: "Checksum mismatch",
                    detail: "The bytes received do not match Upload-Checksum; nothing of this request was kept. Send them again.")
            }
        }
        // Written and fsynced even when a HEAD cancelled this task: what arrived is kept (a task of its own, which
        // nothing cancels, since the thread pool refuses work from a cancelled one).
        let rest = pending
        try await Task {
            try await NIOThreadPool.singleton.runIfActive {
                try rest.withUnsafeReadableBytes { try DurableFiles.writeAll(fd, $0) }
                try DurableFiles.check(fsync(fd), "fsync")
            }
        }.value
        return count
    }

    // MARK: - Finishing

    /// The last byte is in: the file becomes a photo, like a plain upload's body would; the held shot is the
    /// photo's, or given back when the photo was there already.
    private func finish(_ upload: ResumableUpload, _ shooting: PhotoService.Shooting) async throws -> Progress {
        let request = PhotoService.UploadRequest(source: upload.source, idempotencyKey: upload.idempotencyKey, declaredLength: upload.length)
        var outcome: PhotoService.Uploaded? = nil
        do {
            if let key = upload.idempotencyKey, let existing = try await photos.photos.find(uploaderID: upload.uploaderID, idempotencyKey: key) {
                outcome = .existing(try await photos.json(existing, viewerID: upload.uploaderID))
            } else {
                let staged = try await stage(upload)
                defer { staged.discard() }
                outcome = try await photos.record(staged, request, shooting, shotReserved: upload.guestID != nil)
            }
        } catch {
            // Refused (not a photo, a duplicate, over quota): the upload is over, its shot given back.
            try await end(upload)
            throw error
        }
        guard let outcome else { throw Problem.uploadGone }
        let photo: PhotoJSON
        switch outcome {
        case .created(let created):
            photo = created
        case .existing(let existing):
            photo = existing
            if let guestID = upload.guestID { try await database.sql { db in try await ShotLimit.release(guestID: guestID, in: db) } }
        }
        return try await finished(upload, as: Made(id: photo.id, location: "/api/v1/photos/\(photo.id)"))
    }

    /// Records what the upload became and removes its bytes.
    func finished(_ upload: ResumableUpload, as made: Made) async throws -> Progress {
        try await database.sql { db in
            try await db.raw("UPDATE resumable_uploads SET photo_id = \(bind: made.id), guest_id = NULL WHERE id = \(bind: upload.id)").run()
        }
        unlink(file(upload.id).path)
        return Progress(upload: try await find(upload.id) ?? upload, made: made)
    }

    /// The whole file, hashed, as a staged upload (moved into the staging folder, beside the store).
    func stage(_ upload: ResumableUpload) async throws -> StagedUpload {
        let source = file(upload.id).path
        let target = photos.staging.directory.appendingPathComponent(UUID().uuidString)
        return try await NIOThreadPool.singleton.runIfActive {
            var hasher = SHA256()
            var head: [UInt8] = []
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                if head.count < ImageFormat.sniffLength { head += chunk.prefix(ImageFormat.sniffLength - head.count) }
            }
            if rename(source, target.path) != 0 {
                // Another file system: copy (the original stays until the photo is recorded).
                try DurableFiles.write(try Data(contentsOf: URL(fileURLWithPath: source)), to: target.path)
            }
            return StagedUpload(file: target, sha256: hasher.finalize().hex, byteSize: upload.length, head: head)
        }
    }

    // MARK: - Ending

    /// Termination (DELETE): the bytes are removed and the held shot given back.
    func terminate(_ id: String, for identity: Identity?) async throws {
        let (upload, _) = try await owned(id, by: identity)
        await locks.stopHolder(id)
        try await end(upload)
    }

    func end(_ upload: ResumableUpload) async throws {
        try await database.transaction { db in
            let removed = try await db.raw("DELETE FROM resumable_uploads WHERE id = \(bind: upload.id) RETURNING guest_id").first()
            if let guestID = try removed?.decode(column: "guest_id", as: String?.self) {
                try await ShotLimit.release(guestID: guestID, in: db)
            }
        }
        unlink(file(upload.id).path)
    }

    /// Drops uploads that waited past their expiry (their shots given back), and finished ones kept for a late HEAD.
    @discardableResult
    func sweep() async throws -> Int {
        let now = clock.now.millisecondsSince1970
        let due = try await database.sql { db in
            try await db.raw("SELECT * FROM resumable_uploads WHERE expires_at <= \(bind: now)").all().map(ResumableUpload.init(row:))
        }
        for upload in due { try await end(upload) }
        return due.count
    }

    // MARK: - Helpers

    func find(_ id: String) async throws -> ResumableUpload? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM resumable_uploads WHERE id = \(bind: id)").first().map(ResumableUpload.init(row:))
        }
    }

    func unfinished(uploaderID: String, idempotencyKey: String) async throws -> ResumableUpload? {
        try await database.sql { db in
            try await db.raw(
                """
                SELECT * FROM resumable_uploads
                WHERE uploader_id = \(bind: uploaderID) AND idempotency_key = \(bind: idempotencyKey) AND photo_id IS NULL
                """
            ).first().map(ResumableUpload.init(row:))
        }
    }

    /// The upload, when it is the caller's and not expired; 404 otherwise (others learn nothing of it).
    private func owned(_ id: String, by identity: Identity?) async throws -> (ResumableUpload, Destination) {
        guard let identity else { throw Problem.unauthorized }
        guard let upload = try await find(id), upload.expiresAt > clock.now else { throw Problem.uploadGone }
        if upload.toLibrary {
            guard case .user(let user, _) = identity, user.id == upload.uploaderID else { throw Problem.uploadGone }
            return (upload, .library(user))
        }
        let shooting = try? await photos.shooting(into: upload.eventID, for: identity)
        guard let shooting, shooting.uploader.id == upload.uploaderID else { throw Problem.uploadGone }
        return (upload, .event(shooting))
    }

    func file(_ id: String) -> URL { directory.appendingPathComponent(id) }
}

extension Problem {
    static let uploadGone = Problem(
        .notFound, "upload-not-found", title: "No such upload",
        detail: "This upload does not exist, or it expired after a day without news. Start it again from the beginning.")
}
