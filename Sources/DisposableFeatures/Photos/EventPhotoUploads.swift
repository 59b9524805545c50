import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Resumable uploads into an event (UP-4): a member's shot while the event is live, held from the creation for a
/// guest; the finished file becomes a photo through the shutter's own path (`PhotoService.record`).
package struct EventPhotoUploads: UploadTarget {
    package let photos: PhotoService

    package var name: String { "event" }
    package var maxBytes: Int64 { photos.limits.maxBytes }

    package func admit(length: Int64, placeID: String, metadata: UploadMetadata, for identity: Identity?) async throws -> UploadAdmission {
        let source = try metadata.values["source"].map { raw in
            // Drawings are small and sent whole (`POST …/photos` with `X-Photo-Source: drawing`).
            guard let source = PhotoSource(rawValue: raw), source != .drawing else {
                throw Problem.badRequest("The source in Upload-Metadata must be “camera” or “library”.", field: "Upload-Metadata")
            }
            return source
        }
        let shooting = try await photos.shooting(into: placeID, for: identity)
        try photos.checkSource(source ?? .library, shooting)
        guard length > 0 else { throw Problem.emptyFile }
        try photos.ingest.admit(declaredLength: length, under: photos.ingestPolicy(for: shooting.event))
        try await photos.checkQuota(of: shooting.event, uploader: shooting.uploader, adding: length)
        let heldShot: (String, Int)? = if case .guest(let guest, let shots) = shooting.uploader { (guest.id, shots) } else { nil }
        return UploadAdmission(
            uploaderID: shooting.uploader.id, accountID: shooting.event.organizerID, byOrganizer: shooting.uploader.isOrganizer,
            source: source ?? .library, heldShot: heldShot)
    }

    package func mayContinue(_ upload: ResumableUpload, as identity: Identity) async -> Bool {
        (try? await photos.shooting(into: upload.placeID, for: identity))?.uploader.id == upload.uploaderID
    }

    package func checkFirstLook(_ jpeg: Data) async throws {
        _ = try await FirstLook.checkAlone(jpeg, images: photos.ingest.images)
    }

    package func finish(_ upload: ResumableUpload, as identity: Identity, firstLook: Data?, stage: () async throws -> StagedUpload) async throws
        -> UploadFinish
    {
        if let key = upload.idempotencyKey, let existing = try await photos.photo(uploaderID: upload.uploaderID, idempotencyKey: key) {
            return UploadFinish(madeID: existing.id, existed: true)
        }
        let shooting = try await photos.shooting(into: upload.placeID, for: identity)
        let request = PhotoService.UploadRequest(source: upload.source, idempotencyKey: upload.idempotencyKey, declaredLength: upload.length)
        let staged = try await stage()
        defer { staged.discard() }
        let recorded: PhotoService.Uploaded
        do {
            recorded = try await photos.record(staged, request, shooting, shotReserved: upload.guestID != nil, firstLook: firstLook)
        } catch let problem as Problem where firstLook != nil && problem.slug == "first-look-refused" {
            // Its shape could only be checked now, against the photo: the photo, whose bytes are all here, goes without it.
            Metric.firstLook("refused")
            recorded = try await photos.record(staged, request, shooting, shotReserved: upload.guestID != nil)
        }
        switch recorded {
        case .created(let photo): return UploadFinish(madeID: photo.id, existed: false)
        case .existing(let photo): return UploadFinish(madeID: photo.id, existed: true)
        }
    }

    package func location(of madeID: String) -> String { "/api/v1/photos/\(madeID)" }
}
