import DisposableCore
import DisposablePlatform
import Foundation

/// What an event photo tells the render pipeline, in its three cases: a photo nobody sees yet (both renders make it
/// ready), one shown by the phone's first look (both replace it, compared with it), and one an earlier version showed
/// with its thumbnail (the preview alone).
struct EventPhotoRender: RenderTarget {
    let renderer: PhotoRenderer
    /// The job is for a photo already seen (`renderPreview`).
    let seen: Bool

    enum Work: Sendable {
        case unseen(Photo)
        case firstLook(Photo, miniature: [UInt8], ImageFormat)
        case previewOnly(Photo, ImageFormat)

        var photo: Photo {
            switch self {
            case .unseen(let photo), .firstLook(let photo, _, _), .previewOnly(let photo, _): photo
            }
        }
    }

    struct Made: Sendable {
        let image: RenderedImage
        var video: PhotoRepository.RenderedVideoFacts? = nil
    }

    var measured: Bool { true }
    private var photos: PhotoRepository { renderer.photos }

    func work(for photoID: String) async throws -> Work? {
        guard let photo = try await photos.find(id: photoID) else { return nil }
        guard seen else { return photo.status == .processing ? .unseen(photo) : nil }
        guard photo.status == .ready, photo.previewPending, case .image(let format) = photo.format else { return nil }
        if let miniature = photo.firstLook { return .firstLook(photo, miniature: miniature, format) }
        return .previewOnly(photo, format)
    }

    func render(_ work: Work, with derivatives: Derivatives) async throws -> Made {
        let photo = work.photo
        let original = BlobKey.original(photo.eventID, photo.id)
        switch work {
        case .unseen:
            guard case .image(let format) = photo.format else { return try await renderVideo(photo, with: derivatives) }
            return Made(image: try await derivatives.picture(key: original, format: format, parts: .both))
        case .firstLook(_, _, let format):
            return Made(image: try await derivatives.picture(key: original, format: format, parts: .both))
        case .previewOnly(_, let format):
            // Rare to fail: its thumbnail was read from the same file, to its last byte (a decode at 1/8 reads them all).
            return Made(image: try await derivatives.picture(key: original, format: format, parts: .preview))
        }
    }

    func undecodable(_ work: Work, jobID: String, error: UndecodableImage) async throws {
        try await renderer.fail(
            photoID: work.photo.id, jobID: jobID, reason: "This file could not be read as an image (\(error.description)).")
    }

    func beginWrite(_ work: Work) async throws {
        try await renderer.pendingWrites.begin(eventID: work.photo.eventID, photoID: work.photo.id)
    }

    func files(of work: Work, _ made: Made) -> [(key: String, data: Data)] {
        let photo = work.photo
        let preview = (key: BlobKey.preview(photo.eventID, photo.id), data: made.image.preview)
        if case .previewOnly = work { return [preview] }
        return [(key: BlobKey.thumbnail(photo.eventID, photo.id), data: made.image.thumbnail), preview]
    }

    func record(_ work: Work, _ made: Made, jobID: String) async throws -> PhotoRepository.Rendered? {
        let (photo, image, now) = (work.photo, made.image, renderer.clock.now)
        let takenAt = image.takenAt?.instant(floatingIn: .gmt) ?? photo.uploadedAt
        let bothBytes = Int64(image.preview.count + image.thumbnail.count)
        switch work {
        case .unseen:
            return try await photos.markReady(
                photo.id, jobID: jobID, width: image.width, height: image.height, takenAt: takenAt,
                derivativeBytes: bothBytes + (made.video?.bytes ?? 0), video: made.video, signals: image.signals, now: now)
        case .firstLook(_, let miniature, _):
            // One that showed another picture is counted and remembered (`PhotoService` shows no more of that guest's).
            let refuted = !FirstLook.matches(miniature: miniature, image.signals)
            let replaced = try await photos.markRendered(
                photo.id, jobID: jobID, width: image.width, height: image.height, takenAt: takenAt, derivativeBytes: bothBytes,
                signals: image.signals, refuted: refuted, now: now)
            if replaced != nil { Metric.firstLook(refuted ? "refuted" : "confirmed") }
            return replaced
        case .previewOnly:
            return try await photos.markPreviewed(photo.id, jobID: jobID, previewBytes: Int64(image.preview.count), now: now)
        }
    }

    /// Deleted meanwhile: what was written must not stay behind. Made first by another worker (this job's lease ran
    /// out while it waited for the CPU, at the low priority): its files are the same bytes as these, nothing goes.
    func settleUnrecorded(_ work: Work) async throws {
        let photo = work.photo
        if try await photos.find(id: photo.id) == nil {
            try await renderer.pendingWrites.abandon(eventID: photo.eventID, photoID: photo.id)
        } else {
            try await renderer.pendingWrites.end(photoID: photo.id)
        }
    }

    func announce(_ work: Work, _ recorded: PhotoRepository.Rendered?) async {
        if case .firstLook(let photo, _, _) = work, recorded != nil {
            // Links to it are gone from every answer from now on; one fetched just before gets the server's thumbnail
            // (`MediaController`).
            try? await renderer.blobs.delete(key: BlobKey.firstLook(photo.eventID, photo.id))
        }
        await renderer.changes.refresh(work.photo.eventID, moved: recorded?.moved)
    }

    func subject(of work: Work) -> RenderedSubject {
        let photo = work.photo
        return RenderedSubject(kind: .eventPhoto, id: photo.id, scope: photo.eventID, previewKey: BlobKey.preview(photo.eventID, photo.id))
    }

    /// SOC-4: the playable copy — always made, so what others play carries none of the file's metadata, and lasts at
    /// most 30 seconds — stored, and the poster frame rendered like a photo.
    private func renderVideo(_ photo: Photo, with derivatives: Derivatives) async throws -> Made {
        var copyBytes: Int64? = nil
        let made = try await derivatives.video(
            key: BlobKey.original(photo.eventID, photo.id), limits: IngestPolicy.eventVideoLimits, transcode: true, lane: .event
        ) { copy, sha256, size in
            try await renderer.pendingWrites.begin(eventID: photo.eventID, photoID: photo.id)
            try await renderer.blobs.put(file: copy, key: BlobKey.video(photo.eventID, photo.id), sha256: sha256, size: size)
            copyBytes = size
        }
        guard let copyBytes else { throw UndecodableImage(description: "no playable copy") }
        // The poster has no date of its own: the video's recording date, if it says.
        let frame = made.poster
        let poster = RenderedImage(
            width: frame.width, height: frame.height, takenAt: made.info.recordedAt.map(CaptureTime.init(instant:)), preview: frame.preview,
            thumbnail: frame.thumbnail, signals: frame.signals)
        return Made(image: poster, video: .init(bytes: copyBytes, duration: made.info.duration))
    }
}
