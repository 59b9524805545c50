import DisposableCore
import DisposablePlatform
import Foundation

/// An event photo's renders (MED-1): its preview and thumbnail, which make it ready — or failed when it cannot be
/// decoded. A video (SOC-4) gets them from its poster frame, and its web-playable copy. The steps are the
/// `RenderPipeline`'s; this is what an event photo tells it (`EventPhotoRender`).
///
/// A photo sent with the phone's first look (`FirstLook`) is seen at once and its renders follow in their turn, after
/// every photo that nobody sees yet (`JobQueue.Priority`); one sent without (the CLI, a script, a browser that could
/// not decode its file) is seen when they are stored.
package struct PhotoRenderer: Sendable {
    let photos: PhotoRepository
    package let blobs: any BlobStore
    package let pendingWrites: PendingWrites
    package let changes: ChangeHub
    package let clock: any AppClock
    package let pipeline: RenderPipeline

    init(
        photos: PhotoRepository, blobs: any BlobStore, pendingWrites: PendingWrites, changes: ChangeHub, clock: any AppClock, pipeline: RenderPipeline
    ) {
        self.photos = photos
        self.blobs = blobs
        self.pendingWrites = pendingWrites
        self.changes = changes
        self.clock = clock
        self.pipeline = pipeline
    }

    /// A photo nobody sees yet (or a video): both renders from one decode make it ready.
    package func render(photoID: String, jobID: String) async throws {
        try await pipeline.run(EventPhotoRender(renderer: self, seen: false), subjectID: photoID, jobID: jobID)
    }

    /// The renders of a photo already seen: both, in one decode, in place of the phone's first look — or the preview
    /// alone for a photo an earlier version showed with its thumbnail first.
    package func renderPreview(photoID: String, jobID: String) async throws {
        try await pipeline.run(EventPhotoRender(renderer: self, seen: true), subjectID: photoID, jobID: jobID)
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
