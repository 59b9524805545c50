import DisposableCore
import DisposablePlatform
import Foundation

/// Makes a library asset's preview and thumbnail (the MED-1 pipeline; for a video, from its poster frame, with a copy
/// browsers play unless the original plays as it is) and marks it ready; a file that cannot be decoded stays in the
/// library as it was sent, marked failed.
package struct LibraryRenderer: Sendable {
    package let assets: LibraryRepository
    package let blobs: any BlobStore
    package let derivatives: Derivatives
    package let pendingWrites: PendingWrites
    package let feed: StreamWaker
    package let jobs: JobQueue
    /// Library videos' bounds (their length, `--max-library-video-minutes`) and their daily transcoding.
    package var videoLimits = VideoLimits(maxSeconds: 900)
    package var budget: TranscodeBudget? = nil
    /// The owner's time zone (their account's), in which a photo's floating EXIF time is read; UTC when unset.
    package var ownerZone: @Sendable (_ userID: String) async throws -> TimeZone = { _ in .gmt }

    package func render(assetID: String, jobID: String) async throws {
        guard let asset = try await assets.find(id: assetID), asset.status == .processing, asset.deletedAt == nil else {
            try await jobs.complete(jobID)
            return
        }
        let rendered: RenderedImage
        var video: LibraryRepository.RenderedVideoFacts? = nil
        var playableBytes: Int64 = 0
        do {
            switch asset.format {
            case .image(let format):
                rendered = try await derivatives.picture(key: asset.files.original, format: format)
            case .video:
                (rendered, video, playableBytes) = try await renderVideo(asset)
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
            asset, jobID: jobID, width: rendered.width, height: rendered.height,
            takenAt: asset.format.isVideo ? nil : try await captured(rendered.takenAt, owner: asset.userID),
            derivativeBytes: Int64(rendered.preview.count + rendered.thumbnail.count) + playableBytes, video: video,
            signals: rendered.signals)
        if ready == nil, try await !assets.isRecorded(asset.files) { try await pendingWrites.abandon(asset.files) }
        await feed.changed(asset.userID)
    }

    /// The file's capture time: its moment (a floating time placed in the owner's zone, for the timeline's order)
    /// and the clock where it was taken, which is what people see.
    private func captured(_ time: CaptureTime?, owner: String) async throws -> LibraryRepository.CapturedAt? {
        guard let time else { return nil }
        return .init(time, zone: try await ownerZone(owner))
    }

    /// A video's poster rendered like a photo, and its playable copy stored (when the original does not play as it is).
    private func renderVideo(_ asset: LibraryAsset) async throws -> (RenderedImage, LibraryRepository.RenderedVideoFacts, Int64) {
        var playable = Motion(kind: .embedded, offset: 0, size: asset.byteSize, contentType: asset.format.mimeType)
        var cost: Int64 = 0
        let made = try await derivatives.video(
            key: asset.files.original, limits: videoLimits, transcode: false, lane: .library,
            admit: { info in
                cost = info.playsInBrowsers ? 0 : TranscodeBudget.cost(info, maxSeconds: videoLimits.maxSeconds)
                guard cost > 0 else { return }
                // Another library transcode under way: step back rather than hold a worker a party's photos need.
                if derivatives.videos?.tool.libraryLaneBusy == true { throw RenderLater(delay: 5) }
                if let budget, let delay = try await budget.reserve(for: asset.userID, cost: cost) { throw RenderLater(delay: delay) }
            },
            keep: { copy, sha256, size in
                try await pendingWrites.begin(asset.files)
                try await blobs.put(file: copy, key: asset.files.motion, sha256: sha256, size: size)
                playable = Motion(kind: .derivative, offset: 0, size: size, contentType: "video/mp4")
            })
        let facts = LibraryRepository.RenderedVideoFacts(
            playable: playable, durationMilliseconds: made.info.duration.map { Int64(($0 * 1000).rounded()) })
        return (made.poster, facts, playable.kind == .derivative ? playable.size : 0)
    }

    /// Gave up after many tries (storage trouble): the asset stays, marked failed, its original kept.
    package func fail(assetID: String, jobID: String) async throws {
        guard let asset = try await assets.find(id: assetID) else { return try await jobs.complete(jobID) }
        _ = try await assets.markFailed(asset, jobID: jobID)
        await feed.changed(asset.userID)
    }
}

extension JobQueue.Kind {
    /// A library asset's derivatives.
    package static let renderAsset = Self(rawValue: "render-asset")
}

extension LibraryRenderer {
    /// The library's jobs, as the workers run them.
    package var jobHandlers: [JobQueue.Kind: JobHandler] {
        [
            .renderAsset: JobHandler(
                run: { job in try await render(assetID: job.subjectID, jobID: job.id) },
                giveUp: { job in try? await fail(assetID: job.subjectID, jobID: job.id) })
        ]
    }
}
