import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Resumable uploads into the uploader's own library (LIB-1, `target` `library`): a signed-in account only, no shot to
/// hold; the finished file becomes an asset through the same path as a plain upload (`LibraryService.record`).
package struct LibraryUploads: UploadTarget {
    package let library: LibraryService

    package var name: String { "library" }
    package var maxBytes: Int64 { library.maxBytes }

    package func admit(length: Int64, placeID: String, metadata: UploadMetadata, for identity: Identity?) async throws -> UploadAdmission {
        guard let identity else { throw Problem.unauthorized }
        guard case .user(let user, _) = identity else {
            throw Problem(
                .forbidden, "account-required", title: "Account required", detail: "Sign in (or create an account) to keep files in your own library."
            )
        }
        guard length > 0 else { throw Problem.emptyFile }
        guard length <= library.maxBytes else { throw Problem.photoTooLarge(library.maxBytes) }
        try await library.checkQuota(of: user.id, adding: length)
        _ = try LibraryService.caption(metadata.values["caption"])
        return UploadAdmission(uploaderID: user.id, accountID: user.id, byOrganizer: true, source: .library, heldShot: nil)
    }

    package func mayContinue(_ upload: ResumableUpload, as identity: Identity) async -> Bool {
        if case .user(let user, _) = identity { return user.id == upload.uploaderID }
        return false
    }

    package func finish(_ upload: ResumableUpload, as identity: Identity, firstLook: Data?, stage: () async throws -> StagedUpload) async throws
        -> UploadFinish
    {
        if let key = upload.idempotencyKey, let existing = try await library.asset(uploaderID: upload.uploaderID, idempotencyKey: key) {
            return UploadFinish(madeID: existing.id, existed: true)
        }
        let metadata = try? UploadMetadata(header: upload.metadata)
        let request = LibraryService.UploadRequest(
            idempotencyKey: upload.idempotencyKey, takenAt: nil, fileName: metadata?.values["filename"], declaredLength: upload.length,
            caption: try? LibraryService.caption(metadata?.values["caption"]))
        let staged = try await stage()
        defer { staged.discard() }
        switch try await library.record(staged, request, for: upload.uploaderID) {
        case .created(let asset): return UploadFinish(madeID: asset.id, existed: false)
        case .existing(let asset): return UploadFinish(madeID: asset.id, existed: true)
        }
    }

    package func location(of madeID: String) -> String { "/api/v1/library/assets/\(madeID)" }
}
