import Foundation

/// Makes a library asset's preview and thumbnail (the MED-1 pipeline) and marks it ready; a file that cannot be
/// decoded stays in the library as it was sent, marked failed.
struct LibraryRenderer: Sendable {
    let assets: LibraryRepository
    let blobs: any BlobStore
    let images: any ImageProcessor
    let pendingWrites: PendingWrites
    let feed: LibraryFeed
    let jobs: JobQueue

    func render(assetID: String, jobID: String) async throws {
        guard let asset = try await assets.find(id: assetID), asset.status == .processing, asset.deletedAt == nil else {
            try await jobs.complete(jobID)
            return
        }
        let rendered: RenderedImage
        do {
            rendered = try await blobs.withLocalFile(key: asset.files.original) { path in
                try await images.render(path, format: asset.format)
            }
        } catch is UndecodableImage {
            _ = try await assets.markFailed(asset, jobID: jobID)
            await feed.changed(asset.userID)
            return
        }
        // Recorded before writing: should the asset be edited or deleted meanwhile and the process die, they go too.
        try await pendingWrites.begin(asset.files)
        try await blobs.put(data: rendered.preview, key: asset.files.preview)
        try await blobs.put(data: rendered.thumbnail, key: asset.files.thumbnail)
        let ready = try await assets.markReady(
            asset, jobID: jobID, width: rendered.width, height: rendered.height, takenAt: rendered.takenAt,
            derivativeBytes: Int64(rendered.preview.count + rendered.thumbnail.count))
        if ready == nil, try await !asset.files.isRecorded(in: assets.database) { try await pendingWrites.abandon(asset.files) }
        await feed.changed(asset.userID)
    }

    /// Gave up after many tries (storage trouble): the asset stays, marked failed, its original kept.
    func fail(assetID: String, jobID: String) async throws {
        guard let asset = try await assets.find(id: assetID) else { return try await jobs.complete(jobID) }
        _ = try await assets.markFailed(asset, jobID: jobID)
        await feed.changed(asset.userID)
    }
}
