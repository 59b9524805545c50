import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import Logging

/// The one way a file comes in, whatever it becomes — an event photo or video, a library asset, a profile
/// picture, a capsule's song: **stage** the body (hashed, fsynced, never whole in memory) → **identify** it under the
/// entry point's `IngestPolicy` (format from its bytes, pixels and frames from its header, a video's length from
/// ffprobe) → **store** it durably (a pending write begun before, abandoned on failure) → and the target's own
/// service records it (`PhotoService.record`, `LibraryService.record`, `ProfileService.setAvatar`,
/// `CapsuleService.setClip`), which ends the pending write in the transaction that names the file.
package struct Ingest: Sendable {
    package let staging: UploadStaging
    package let images: any ImageProcessor
    /// ffprobe and ffmpeg; nil where ffmpeg is not installed (videos and sounds are then refused).
    package let videos: VideoProcessor?
    package let blobs: any BlobStore
    package let pendingWrites: PendingWrites
    package let logger: Logger

    package init(
        staging: UploadStaging, images: any ImageProcessor, videos: VideoProcessor?, blobs: any BlobStore, pendingWrites: PendingWrites,
        logger: Logger
    ) {
        self.staging = staging
        self.images = images
        self.videos = videos
        self.blobs = blobs
        self.pendingWrites = pendingWrites
        self.logger = logger
    }

    package struct Identified: Sendable {
        package let format: MediaFormat
        /// What ffprobe read of a video.
        package let video: VideoInfo?
        /// What a picture's header says.
        package var header: ImageHeader? = nil
    }

    /// Files that a row will vouch for once recorded (REL-1).
    package enum PendingWrite: Sendable {
        case eventPhoto(eventID: String, photoID: String)
        /// A library asset's revision: its original, then its derivatives.
        case libraryRevision(LibraryFiles)
        /// A live photo's video added beside a recorded original: failing, only that file goes.
        case libraryMotion(LibraryFiles)
    }

    /// The largest body worth receiving under `policy` on this server (no video's size where ffmpeg is missing).
    package func maxBytes(under policy: IngestPolicy) -> Int64 {
        videos == nil ? policy.maxImageBytes : policy.maxBytes
    }

    /// 413 before a byte is read when the client says how long its body is.
    package func admit(declaredLength: Int64?, under policy: IngestPolicy) throws {
        let limit = maxBytes(under: policy)
        if let length = declaredLength, length > limit { throw Problem.photoTooLarge(limit) }
    }

    /// The body to a staging file under `policy`'s size (413 past it, 507 on a full disk). With `room` (what the
    /// owner's quota has left, when less), `overQuota` is thrown as soon as the body passes it, while it streams.
    package func stage(
        _ body: some AsyncSequence<ByteBuffer, any Error>, declaredLength: Int64?, under policy: IngestPolicy, room: Int64? = nil,
        overQuota: @Sendable () async throws -> Problem = { Problem.storageFull }
    ) async throws -> StagedUpload {
        try admit(declaredLength: declaredLength, under: policy)
        guard let room, room < maxBytes(under: policy) else { return try await stage(body, limit: maxBytes(under: policy)) }
        if let declaredLength, declaredLength > room { throw try await overQuota() }
        do {
            return try await stage(body, limit: room)
        } catch let problem as Problem where problem.status == .contentTooLarge {
            throw try await overQuota()
        }
    }

    /// A body this server made itself (a copy of a stored photo), whatever its size.
    package func stage(_ body: some AsyncSequence<ByteBuffer, any Error>, limit: Int64) async throws -> StagedUpload {
        let receiving = ContinuousClock.now
        defer { Metric.ingest(.receive, since: receiving) }
        do {
            return try await staging.receive(body, maxBytes: limit, sync: blobs.keepsGivenFiles)
        } catch is StorageFull {
            throw Problem.storageFull
        }
    }

    /// What the staged bytes are under `policy`: a picture `ImageCheck` accepts, or a video ffprobe reads within the
    /// policy's bounds — 415 for anything else, 413 for a picture past the picture limit, 422 for a broken file.
    package func identify(_ staged: StagedUpload, under policy: IngestPolicy) async throws -> Identified {
        guard staged.byteSize > 0 else { throw Problem.emptyFile }
        if let container = VideoFormat(sniffing: staged.head) {
            switch policy.videos {
            case .refused(let problem): throw problem
            case .accepted(let limits, _):
                guard let videos else { throw Problem.videosUnavailable }
                return Identified(format: .video(container), video: try await videos.inspect(staged.file.path, limits: limits))
            }
        }
        guard ImageFormat(sniffing: staged.head) != nil else { throw policy.takesVideos ? Problem.notPhotoOrVideo : Problem.picturesOnly }
        if staged.byteSize > policy.maxImageBytes { throw Problem.photoTooLarge(policy.maxImageBytes) }
        let (format, header) = try await ImageCheck(images: images, maxPixels: policy.maxPixels, logger: logger).validate(staged)
        return Identified(format: .image(format), video: nil, header: header)
    }

    /// A sound file ffprobe reads (the song clip's policy); 415 otherwise, 503 without ffmpeg.
    package func identifySound(_ staged: StagedUpload) async throws -> AudioClip {
        guard let videos else { throw Problem.soundsUnavailable }
        let clip = AudioClip(tool: videos.tool)
        try await clip.check(staged.file.path)
        return clip
    }

    /// The staged file under `key`, durably, recorded first as a pending write: should the process die before the
    /// row that names it commits, `PendingWrites.reconcile` removes it. 507 on a full disk, 503 when the store is out
    /// of reach; nothing is left behind either way.
    package func store(_ staged: StagedUpload, key: String, as write: PendingWrite) async throws {
        let storing = ContinuousClock.now
        defer { Metric.ingest(.store, since: storing) }
        try await begin(write)
        try await abandoningOnFailure(write) { try await blobs.put(file: staged.file, key: key, sha256: staged.sha256, size: staged.byteSize) }
    }

    /// A small file made at ingest (an event photo's first look) beside the original stored under `write`: on
    /// failure, the whole write is abandoned.
    package func store(_ data: Data, key: String, beside write: PendingWrite) async throws {
        try await abandoningOnFailure(write) { try await blobs.put(data: data, key: key) }
    }

    /// A storage failure abandons `write` and is said as the uploader should read it.
    private func abandoningOnFailure(_ write: PendingWrite, _ put: () async throws -> Void) async throws {
        do {
            try await put()
        } catch {
            try? await abandon(write)
            if error is StorageFull { throw Problem.storageFull }
            if error is StorageUnavailable { throw Problem.storageUnavailable }
            throw error
        }
    }

    /// The target refused to record what was stored (a limit reached meanwhile, a race lost): its files go.
    package func abandon(_ write: PendingWrite) async throws {
        switch write {
        case .eventPhoto(let eventID, let photoID): try await pendingWrites.abandon(eventID: eventID, photoID: photoID)
        case .libraryRevision(let files): try await pendingWrites.abandon(files)
        case .libraryMotion(let files):
            try await blobs.delete(key: files.motion)
            try await settle(write)
        }
    }

    /// The file is named by a committed row: forget the pending write (for targets whose record step is not a
    /// transaction of its own — the event photo and library inserts end it inside theirs).
    package func settle(_ write: PendingWrite) async throws {
        let id =
            switch write {
            case .eventPhoto(_, let photoID): photoID
            case .libraryRevision(let files), .libraryMotion(let files): files.writeID
            }
        try await pendingWrites.end(photoID: id)
    }

    private func begin(_ write: PendingWrite) async throws {
        switch write {
        case .eventPhoto(let eventID, let photoID): try await pendingWrites.begin(eventID: eventID, photoID: photoID)
        case .libraryRevision(let files), .libraryMotion(let files): try await pendingWrites.begin(files)
        }
    }
}

extension Problem {
    package static let notPhotoOrVideo = Problem(
        .unsupportedMediaType, "unsupported-format", title: "Unsupported format",
        detail: "This file is not a photo or video we accept. Send JPEG, PNG, HEIC/HEIF, WebP, AVIF or GIF photos, "
            + "or MP4, QuickTime or WebM videos.")

    package static let soundsUnavailable = Problem(
        .serviceUnavailable, "clips-unavailable", title: "Sound clips unavailable",
        detail: "This server cannot read sound files (ffmpeg is not installed).")

    package static let storageFull = Problem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), "storage-full", title: "Storage full",
        detail: "The server's storage is full, so this photo could not be saved. Keep it on your phone and try again later.")
}
