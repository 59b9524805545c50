import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// Adding to a library (LIB-1, UP-6/7): a plain upload's body, a finished resumable upload, an event photo saved,
/// a live photo's video attached — each checked, stored durably and recorded through `record`.
extension LibraryService {
    // MARK: Adding

    package func upload(_ request: UploadRequest, for user: User, body: RequestBody) async throws -> Uploaded {
        if let key = request.idempotencyKey, let existing = try await assets.find(userID: user.id, idempotencyKey: key) {
            return .existing(existing)
        }
        // Too large says more than "no room", so it comes first.
        try ingest.admit(declaredLength: request.declaredLength, under: policy)
        try await checkQuota(of: user.id, adding: request.declaredLength ?? 1)
        let staged = try await ingest.stage(body, declaredLength: request.declaredLength, under: policy)
        defer { staged.discard() }
        return try await record(staged, request, for: user.id)
    }

    /// The largest upload: a video's limit where videos are taken.
    package var maxBytes: Int64 { ingest.maxBytes(under: policy) }

    /// The bytes are whole on disk: check, store, record, enqueue the derivatives.
    package func record(_ staged: StagedUpload, _ request: UploadRequest, for userID: String, sourcePhotoID: String? = nil) async throws -> Uploaded {
        let identified = try await ingest.identify(staged, under: policy)
        let (format, video) = (identified.format, identified.video)
        if let existing = try await assets.find(userID: userID, sha256: staged.sha256) { throw Problem.alreadyInLibrary(existing) }
        let motion = try await embeddedMotion(staged, format: format)  // read before the store may move the file away
        let takenAt = video?.recordedAt ?? request.takenAt  // a video's own date wins, as a photo's EXIF does
        let id = newID()
        let files = LibraryFiles.revision(user: userID, asset: id, fileRevision: 1)
        try await ingest.store(staged, key: files.original, as: .libraryRevision(files))
        var new = LibraryRepository.NewAsset(
            id: id, userID: userID, idempotencyKey: request.idempotencyKey, sha256: staged.sha256, format: format, byteSize: staged.byteSize,
            takenAt: takenAt, fileName: Self.fileName(request.fileName, format: format, takenAt: takenAt ?? clock.now),
            uploadedAt: clock.now)
        new.sourcePhotoID = sourcePhotoID
        new.motion = motion
        new.caption = request.caption
        // Read from the header the check read: the timeline shows the photo in its month from its upload, not only
        // once its render — which may wait behind an event's — reads the same time.
        if let time = identified.header?.takenAt { new.captured = .init(time, zone: try await ownerZone(userID)) }
        let outcome: LibraryRepository.InsertOutcome
        do {
            outcome = try await assets.insert(new)
        } catch {
            try? await ingest.abandon(.libraryRevision(files))
            throw error
        }
        switch outcome {
        case .inserted(let asset):
            await newWork.notify(.library)
            await feed.changed(userID)
            return .created(asset)
        case .quotaExceeded:
            try await ingest.abandon(.libraryRevision(files))
            throw try await quotaExceeded(userID)
        case .conflict:
            try await ingest.abandon(.libraryRevision(files))
            if let key = request.idempotencyKey, let existing = try await assets.find(userID: userID, idempotencyKey: key) {
                return .existing(existing)
            }
            if let existing = try await assets.find(userID: userID, sha256: staged.sha256) { throw Problem.alreadyInLibrary(existing) }
            throw Problem.conflict("library-conflict", "Another upload changed your library at the same time. Please try again.")
        }
    }

    /// A Google motion photo's MP4 after its JPEG (LIB-3).
    package func embeddedMotion(_ staged: StagedUpload, format: MediaFormat) async throws -> Motion? {
        guard format == .image(.jpeg) else { return nil }
        let file = staged.file
        return try await NIOThreadPool.singleton.runIfActive { Motion.embedded(in: try Data(contentsOf: file, options: .alwaysMapped)) }
    }

    package func checkQuota(of userID: String, adding bytes: Int64) async throws {
        guard let usage = try await assets.usage(userID: userID), !usage.fits(bytes) else { return }
        throw Quota.exceeded(usage, byOrganizer: true)
    }

    /// What the account's quota has left; nil without one.
    package func quotaRoom(of userID: String) async throws -> Int64? {
        try await assets.usage(userID: userID).map { max(0, $0.allowed - $0.used) }
    }

    package func quotaExceeded(_ userID: String) async throws -> Problem {
        Quota.exceeded(try await assets.usage(userID: userID) ?? .init(used: 0, allowed: 0, own: nil), byOrganizer: true)
    }

    /// Instagram's own limit for a caption: an imported post keeps all of it.
    package static let maxCaption = 2200

    /// A caption sent with a file (`X-Caption`, tus's `caption`): lines of text, no control characters; none when blank.
    package static func caption(_ raw: String?) throws -> String? {
        guard let raw, !raw.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return try Guestbook.text(raw, field: "caption", max: maxCaption, lines: true, what: "a caption")
    }

    /// The name sent (its last path component, printable, at most 200 characters), or `IMG_20230514_183000.jpg`.
    /// Control, format (bidirectional overrides, invisible marks) and line-separating characters are dropped: a
    /// name shows as it reads, `photo\u{202E}gpj.exe` cannot pass for a JPEG.
    package static func fileName(_ given: String?, format: MediaFormat, takenAt: Date) -> String {
        if let given {
            let last = given.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
            let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned]
            let clean = String(last.unicodeScalars.filter { !hidden.contains($0.properties.generalCategory) }.map(Character.init))
                .trimmingCharacters(in: .whitespaces)
            if !clean.isEmpty, clean != ".", clean != ".." { return String(clean.prefix(200)) }
        }
        let stamp = takenAt.rfc3339.prefix(19).filter { $0.isNumber || $0 == "T" }.replacingOccurrences(of: "T", with: "_")
        return "\(format.isVideo ? "VID" : "IMG")_\(stamp).\(format.fileExtension)"
    }

    /// Which of these SHA-256 the library already holds (timeline or trash), so a client skips them (UP-7).
    package func check(hashes raw: [String], for user: User) async throws -> HashCheckResult {
        guard raw.count <= 1000 else { throw Problem.invalidField("sha256", "Ask about at most 1000 hashes at a time.") }
        let hashes = raw.map { $0.lowercased() }
        guard hashes.allSatisfy({ $0.count == 64 && $0.allSatisfy(\.isHexDigit) }) else {
            throw Problem.invalidField("sha256", "Each sha256 must be 64 hexadecimal characters.")
        }
        let existing = try await assets.existingHashes(userID: user.id, among: hashes)
        return HashCheckResult(existing: hashes.filter(existing.contains), missing: hashes.filter { !existing.contains($0) })
    }

    /// LIB-6: a copy of an event photo the caller may download, as their own asset — it outlives the event.
    package func save(photoID: String, for identity: Identity?) async throws -> Uploaded {
        guard let identity else { throw Problem.unauthorized }
        guard case .user(let user, _) = identity else {
            throw Problem(
                .forbidden, "account-required", title: "Account required",
                detail: "Sign in (or create an account) to keep photos in your own library.")
        }
        let (grant, source) = try await photos.original(photoID, for: identity)
        guard grant.photo.status == .ready else { throw Problem.notReady(grant.photo.status) }
        if let existing = try await assets.find(userID: user.id, sha256: grant.photo.sha256) { return .existing(existing) }
        try await checkQuota(of: user.id, adding: grant.photo.byteSize)
        try await source.prepare()
        let bytes = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
            let task = Task {
                do {
                    try await source.stream(range: nil) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let staged = try await ingest.stage(RequestBody(asyncSequence: bytes), limit: .max)
        defer { staged.discard() }
        // A copy others' photos lost their location in has other bytes: it may already be there under those.
        if let existing = try await assets.find(userID: user.id, sha256: staged.sha256) { return .existing(existing) }
        // The shooter's caption comes along: it was the photo's, and stays with its copy.
        let request = UploadRequest(
            idempotencyKey: nil, takenAt: grant.photo.takenAt, fileName: grant.photo.downloadName, declaredLength: nil, caption: grant.photo.caption)
        return try await record(staged, request, for: user.id, sourcePhotoID: grant.photo.id)
    }
}

extension LibraryService {
    /// LIB-3: an Apple Live Photo's video (MP4 or QuickTime, whole files only: playlists and lists of files are not
    /// videos), kept byte for byte beside its still.
    package func attachVideo(to id: String, for user: User, body: RequestBody, declaredLength: Int64?) async throws -> LibraryAsset {
        let asset = try await asset(id, for: user)
        guard !asset.format.isVideo else {
            throw Problem.conflict("asset-is-video", "This asset is a video: only a photo takes a live photo's motion.")
        }
        // Never overwritten in place: the stored video a row names stays whole until the row lets go of it.
        if asset.motion != nil {
            throw Problem.conflict("motion-exists", "This photo has its motion already. Replace the photo to change it.")
        }
        let staged = try await ingest.stage(body, declaredLength: declaredLength, under: policy)
        defer { staged.discard() }
        guard Motion.isVideoContainer(staged.head) else {
            throw Problem(
                .unsupportedMediaType, "not-a-video", title: "Not a video we keep",
                detail: "A live photo's motion must be an MP4 or QuickTime (.mov) video file.")
        }
        let motion = Motion(kind: .file, offset: 0, size: staged.byteSize, contentType: Motion.contentType(staged.head))
        if let usage = try await assets.usage(userID: user.id), !usage.fits(motion.size) {
            throw Quota.exceeded(usage, byOrganizer: true)
        }
        let write = Ingest.PendingWrite.libraryMotion(asset.files)
        try await ingest.store(staged, key: asset.files.motion, as: write)
        switch try await assets.attach(motion, to: asset) {
        case .attached(let attached):
            try await ingest.settle(write)
            await feed.changed(user.id)
            return attached
        case .quotaExceeded:
            try? await ingest.abandon(write)
            throw try await quotaExceeded(user.id)
        case .gone:
            try? await ingest.abandon(write)
            throw Problem.conflict("asset-changed", "This asset was changed or deleted meanwhile. Reload it and try again.")
        }
    }
}

extension Problem {
    /// UP-6 for the library: the same bytes are already there (perhaps in the trash), with their id.
    package static func alreadyInLibrary(_ asset: LibraryAsset) -> Problem {
        var problem = Problem(
            .conflict, "already-exists", title: "Media already exists",
            detail: asset.trashedAt == nil
                ? "Media already exists: this photo is already in your library."
                : "Media already exists: this photo is in your library's trash. Restore it from there.")
        problem.extensions["existingId"] = asset.id
        return problem
    }
}
