import DisposableCore
import DisposablePlatform
import Foundation

/// What the library's WebDAV tree asks of the library: a file put at a path kept as an asset (the same bytes once,
/// whatever their names), and an asset no path shows any more put in the trash.
extension LibraryService {
    /// Whether staged bytes are a photo or a video by their first bytes (the rest is checked when kept).
    package func looksLikeMedia(_ staged: StagedUpload) -> Bool {
        ImageFormat(sniffing: staged.head) != nil || VideoFormat(sniffing: staged.head) != nil
    }

    /// The asset these bytes are: recorded now through the library's one way in, or the one that has them already
    /// (out of the trash: a client just put them back).
    package func keep(_ staged: StagedUpload, fileName: String, for user: User) async throws -> LibraryAsset {
        let request = UploadRequest(idempotencyKey: nil, takenAt: nil, fileName: fileName, declaredLength: staged.byteSize)
        do {
            switch try await record(staged, request, for: user.id) {
            case .created(let asset), .existing(let asset): return asset
            }
        } catch let problem as Problem where problem.slug == "already-exists" {
            guard let existing = try await assets.find(userID: user.id, sha256: staged.sha256) else { throw problem }
            return existing.trashedAt == nil ? existing : try await restore(existing.id, for: user)
        }
    }

    /// Into the trash, where the web restores it from (never deleted for good from here).
    package func trash(_ id: String, for user: User) async throws {
        let asset = try await asset(id, for: user)
        guard asset.trashedAt == nil else { return }
        if try await assets.setTrashed(asset, at: clock.now) != nil { await feed.changed(user.id) }
    }
}
