import DisposableCore
import DisposablePlatform
import Foundation

/// Makes a photo's preview and thumbnail and marks it ready — or failed when it cannot be decoded (MED-1). A video
/// (SOC-4) gets them from its poster frame, and its web-playable copy.
///
/// A picture is decoded once for both. A photo sent with the phone's first look (`FirstLook`) is seen at once and its
/// renders follow in their turn, after every photo that nobody sees yet (`JobQueue.Priority`); one sent without (the
/// CLI, a script, a browser that could not decode its file) is seen when they are stored.
package struct PhotoRenderer: Sendable {
    package let photos: PhotoRepository
    package let blobs: any BlobStore
    package let derivatives: Derivatives
    package let pendingWrites: PendingWrites
    package let changes: ChangeHub
    package let jobs: JobQueue
    package let clock: any AppClock

    package func render(photoID: String, jobID: String) async throws {
        guard let photo = try await photos.find(id: photoID), photo.status == .processing else {
            try await jobs.complete(jobID)
            return
        }
        let rendered: RenderedImage
        var video: PhotoRepository.RenderedVideoFacts? = nil
        do {
            let started = ContinuousClock.now
            switch photo.format {
            case .image(let format):
                rendered = try await derivatives.picture(key: BlobKey.original(photo.eventID, photo.id), format: format, parts: .both)
                Metric.renderSeconds(ContinuousClock.now - started)
                Metric.ingest(.render, since: started)
            case .video:
                (rendered, video) = try await renderVideo(photo)
                Metric.renderSeconds(ContinuousClock.now - started)
                Metric.ingest(.render, since: started)
            }
        } catch let error as UndecodableImage {
            try await fail(photoID: photoID, jobID: jobID, reason: "This file could not be read as an image (\(error.description)).")
            return
        }
        // Recorded before writing: should the photo be deleted meanwhile and the process die, the files go too.
        let writing = ContinuousClock.now
        try await pendingWrites.begin(eventID: photo.eventID, photoID: photo.id)
        try await blobs.put(data: rendered.thumbnail, key: BlobKey.thumbnail(photo.eventID, photo.id))
        try await blobs.put(data: rendered.preview, key: BlobKey.preview(photo.eventID, photo.id))
        Metric.ingest(.writeDerivatives, since: writing)
        let marking = ContinuousClock.now
        let ready = try await photos.markReady(
            photoID, jobID: jobID, width: rendered.width, height: rendered.height,
            takenAt: rendered.takenAt?.instant(floatingIn: .gmt) ?? photo.uploadedAt,
            derivativeBytes: Int64(rendered.preview.count + rendered.thumbnail.count) + (video?.bytes ?? 0), video: video,
            signals: rendered.signals, now: clock.now)
        if ready == nil { try await settleUnrecorded(photo) }
        await changes.refresh(photo.eventID, moved: ready?.moved)
        Metric.ingest(.markReady, since: marking)
    }

    /// The renders of a photo already seen: both, in one decode, in place of the phone's first look — or the preview
    /// alone for a photo an earlier version showed with its thumbnail first.
    package func renderPreview(photoID: String, jobID: String) async throws {
        guard let photo = try await photos.find(id: photoID), photo.status == .ready, photo.previewPending,
            case .image(let format) = photo.format
        else {
            try await jobs.complete(jobID)
            return
        }
        if let miniature = photo.firstLook { return try await replaceFirstLook(of: photo, miniature: miniature, format: format, jobID: jobID) }
        let preview: Data
        do {
            let started = ContinuousClock.now
            preview = try await derivatives.picture(key: BlobKey.original(photo.eventID, photo.id), format: format, parts: .preview).preview
            Metric.renderSeconds(ContinuousClock.now - started)
            Metric.ingest(.render, since: started)
        } catch let error as UndecodableImage {
            // Rare: its thumbnail was read from the same file, to its last byte (a decode at 1/8 reads them all).
            try await fail(photoID: photoID, jobID: jobID, reason: "This file could not be read as an image (\(error.description)).")
            return
        }
        let writing = ContinuousClock.now
        try await pendingWrites.begin(eventID: photo.eventID, photoID: photo.id)
        try await blobs.put(data: preview, key: BlobKey.preview(photo.eventID, photo.id))
        Metric.ingest(.writeDerivatives, since: writing)
        let marking = ContinuousClock.now
        let previewed = try await photos.markPreviewed(photoID, jobID: jobID, previewBytes: Int64(preview.count), now: clock.now)
        if previewed == nil { try await settleUnrecorded(photo) }
        await changes.refresh(photo.eventID, moved: previewed?.moved)
        Metric.ingest(.markReady, since: marking)
    }

    /// The server's thumbnail and preview in place of the phone's first look, compared with it: one that showed another
    /// picture is counted and remembered (`PhotoService` shows no more of that guest's), and the server's stand now.
    private func replaceFirstLook(of photo: Photo, miniature: [UInt8], format: ImageFormat, jobID: String) async throws {
        let rendered: RenderedImage
        do {
            let started = ContinuousClock.now
            rendered = try await derivatives.picture(key: BlobKey.original(photo.eventID, photo.id), format: format, parts: .both)
            Metric.renderSeconds(ContinuousClock.now - started)
            Metric.ingest(.render, since: started)
        } catch let error as UndecodableImage {
            try await fail(photoID: photo.id, jobID: jobID, reason: "This file could not be read as an image (\(error.description)).")
            return
        }
        let writing = ContinuousClock.now
        try await pendingWrites.begin(eventID: photo.eventID, photoID: photo.id)
        try await blobs.put(data: rendered.thumbnail, key: BlobKey.thumbnail(photo.eventID, photo.id))
        try await blobs.put(data: rendered.preview, key: BlobKey.preview(photo.eventID, photo.id))
        Metric.ingest(.writeDerivatives, since: writing)
        let marking = ContinuousClock.now
        let refuted = !FirstLook.matches(miniature: miniature, rendered.signals)
        let replaced = try await photos.markRendered(
            photo.id, jobID: jobID, width: rendered.width, height: rendered.height,
            takenAt: rendered.takenAt?.instant(floatingIn: .gmt) ?? photo.uploadedAt,
            derivativeBytes: Int64(rendered.preview.count + rendered.thumbnail.count), signals: rendered.signals, refuted: refuted, now: clock.now)
        guard replaced != nil else { return try await settleUnrecorded(photo) }
        Metric.firstLook(refuted ? "refuted" : "confirmed")
        // Links to it are gone from every answer from now on; one fetched just before gets the server's thumbnail
        // (`MediaController`).
        try? await blobs.delete(key: BlobKey.firstLook(photo.eventID, photo.id))
        await changes.refresh(photo.eventID, moved: replaced?.moved)
        Metric.ingest(.markReady, since: marking)
    }

    /// The renders were written but the row took none of them: the photo was deleted meanwhile — what was written must
    /// not stay behind — or another worker made it first (this job's lease ran out while it waited for the CPU, at the
    /// low priority), and its files are the same bytes as these: then nothing may be removed.
    private func settleUnrecorded(_ photo: Photo) async throws {
        if try await photos.find(id: photo.id) == nil {
            try await pendingWrites.abandon(eventID: photo.eventID, photoID: photo.id)
        } else {
            try await pendingWrites.end(photoID: photo.id)
        }
    }

    /// SOC-4: the playable copy — always made, so what others play carries none of the file's metadata, and lasts at
    /// most 30 seconds — stored, and the poster frame rendered like a photo.
    private func renderVideo(_ photo: Photo) async throws -> (RenderedImage, PhotoRepository.RenderedVideoFacts) {
        var copyBytes: Int64? = nil
        let made = try await derivatives.video(
            key: BlobKey.original(photo.eventID, photo.id), limits: IngestPolicy.eventVideoLimits, transcode: true, lane: .event
        ) { copy, sha256, size in
            try await pendingWrites.begin(eventID: photo.eventID, photoID: photo.id)
            try await blobs.put(file: copy, key: BlobKey.video(photo.eventID, photo.id), sha256: sha256, size: size)
            copyBytes = size
        }
        guard let copyBytes else { throw UndecodableImage(description: "no playable copy") }
        // The poster has no date of its own: the video's recording date, if it says.
        let frame = made.poster
        let poster = RenderedImage(
            width: frame.width, height: frame.height, takenAt: made.info.recordedAt.map(CaptureTime.init(instant:)), preview: frame.preview,
            thumbnail: frame.thumbnail,
            signals: frame.signals)
        return (poster, .init(bytes: copyBytes, duration: made.info.duration))
    }

    /// Marks the photo failed and removes its files: a file we cannot decode is not kept.
    /// The files go first: whoever reads "failed" finds none left.
    package func fail(photoID: String, jobID: String, reason: String) async throws {
        guard let photo = try await photos.find(id: photoID) else { return }
        try await blobs.delete(prefix: BlobKey.photo(photo.eventID, photo.id))
        guard try await photos.markFailed(photoID, jobID: jobID, reason: reason, now: clock.now) != nil else { return }
        await changes.refresh(photo.eventID)
    }
}

extension JobQueue.Kind {
    /// An event photo nobody sees yet (sent without a first look), or an event video: its renders make it visible.
    package static let renderPhoto = Self(rawValue: "render-photo")
    /// The renders of an event photo already seen (its first look, or its thumbnail from an earlier version).
    package static let renderPreview = Self(rawValue: "render-preview")
}

extension PhotoRenderer {
    /// The event photos' jobs, as the workers run them.
    package var jobHandlers: [JobQueue.Kind: JobHandler] {
        let giveUp: @Sendable (JobQueue.Job) async -> Void = { job in
            try? await fail(photoID: job.subjectID, jobID: job.id, reason: "Processing kept failing.")
        }
        return [
            .renderPhoto: JobHandler(run: { job in try await render(photoID: job.subjectID, jobID: job.id) }, giveUp: giveUp),
            .renderPreview: JobHandler(run: { job in try await renderPreview(photoID: job.subjectID, jobID: job.id) }, giveUp: giveUp),
        ]
    }
}
