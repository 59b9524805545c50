import Foundation

/// Makes a photo's preview and thumbnail and marks it ready — or failed when it cannot be decoded (MED-1).
struct PhotoRenderer: Sendable {
    let photos: PhotoRepository
    let blobs: any BlobStore
    let images: any ImageProcessor
    let pendingWrites: PendingWrites
    let changes: ChangeHub
    let jobs: JobQueue
    let clock: any AppClock

    func render(photoID: String, jobID: String) async throws {
        guard let photo = try await photos.find(id: photoID), photo.status == .processing else {
            try await jobs.complete(jobID)
            return
        }
        let rendered: RenderedImage
        do {
            let started = ContinuousClock.now
            rendered = try await blobs.withLocalFile(key: BlobKey.original(photo.eventID, photo.id)) { path in
                try await images.render(path, format: photo.format)
            }
            Metric.renderSeconds(ContinuousClock.now - started)
            Metric.ingest(.render, since: started)
        } catch let error as UndecodableImage {
            try await fail(photoID: photoID, jobID: jobID, reason: "This file could not be read as an image (\(error.description)).")
            return
        }
        // Recorded before writing: should the photo be deleted meanwhile and the process die, the files go too.
        let writing = ContinuousClock.now
        try await pendingWrites.begin(eventID: photo.eventID, photoID: photo.id)
        try await blobs.put(data: rendered.preview, key: BlobKey.preview(photo.eventID, photo.id))
        try await blobs.put(data: rendered.thumbnail, key: BlobKey.thumbnail(photo.eventID, photo.id))
        Metric.ingest(.writeDerivatives, since: writing)
        let marking = ContinuousClock.now
        let ready = try await photos.markReady(
            photoID, jobID: jobID, width: rendered.width, height: rendered.height, takenAt: rendered.takenAt ?? photo.uploadedAt,
            derivativeBytes: Int64(rendered.preview.count + rendered.thumbnail.count), now: clock.now)
        // Deleted while we worked: what we just wrote must not stay behind.
        if ready == nil { try await pendingWrites.abandon(eventID: photo.eventID, photoID: photo.id) }
        await changes.refresh(photo.eventID)
        Metric.ingest(.markReady, since: marking)
    }

    /// Marks the photo failed and removes its files: a file we cannot decode is not kept.
    func fail(photoID: String, jobID: String, reason: String) async throws {
        guard let photo = try await photos.markFailed(photoID, jobID: jobID, reason: reason, now: clock.now) else { return }
        try await blobs.delete(prefix: BlobKey.photo(photo.eventID, photo.id))
        await changes.refresh(photo.eventID)
    }
}
