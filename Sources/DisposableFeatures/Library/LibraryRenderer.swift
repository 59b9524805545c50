import DisposableCore
import DisposablePlatform
import Foundation

/// A library asset's renders (the MED-1 pipeline; for a video, from its poster frame, with a copy browsers play
/// unless the original plays as it is), which make it ready; a file that cannot be decoded stays in the library as it
/// was sent, marked failed. The steps are the `RenderPipeline`'s; this is what an asset tells it.
package struct LibraryRenderer: RenderTarget {
    let assets: LibraryRepository
    package let blobs: any BlobStore
    package let pendingWrites: PendingWrites
    package let feed: StreamWaker
    package let pipeline: RenderPipeline
    /// Library videos' bounds (their length, `--max-library-video-minutes`) and their daily transcoding.
    package var videoLimits = VideoLimits(maxSeconds: 900)
    package var budget: TranscodeBudget? = nil
    /// The owner's time zone (their account's), in which a photo's floating EXIF time is read; UTC when unset.
    package var ownerZone: @Sendable (_ userID: String) async throws -> TimeZone = { _ in .gmt }

    package func render(assetID: String, jobID: String) async throws {
        try await pipeline.run(self, subjectID: assetID, jobID: jobID)
    }

    package struct Made: Sendable {
        let image: RenderedImage
        var video: LibraryRepository.RenderedVideoFacts? = nil
        var playableBytes: Int64 = 0

        init(image: RenderedImage, video: LibraryRepository.RenderedVideoFacts? = nil, playableBytes: Int64 = 0) {
            self.image = image
            self.video = video
            self.playableBytes = playableBytes
        }
    }

    /// The event's render figures are the party's; a library's imports are not counted in them.
    package var measured: Bool { false }

    package func work(for assetID: String) async throws -> LibraryAsset? {
        guard let asset = try await assets.find(id: assetID), asset.status == .processing, asset.deletedAt == nil else { return nil }
        return asset
    }

    package func render(_ asset: LibraryAsset, with derivatives: Derivatives) async throws -> Made {
        switch asset.format {
        case .image(let format): return Made(image: try await derivatives.picture(key: asset.files.original, format: format))
        case .video: return try await renderVideo(asset, with: derivatives)
        }
    }

    package func undecodable(_ asset: LibraryAsset, jobID: String, error: UndecodableImage) async throws {
        _ = try await assets.markFailed(asset, jobID: jobID)
        await feed.changed(asset.userID)
    }

    /// Recorded before writing: should the asset be edited or deleted meanwhile and the process die, they go too.
    package func beginWrite(_ asset: LibraryAsset) async throws { try await pendingWrites.begin(asset.files) }

    package func files(of asset: LibraryAsset, _ made: Made) -> [(key: String, data: Data)] {
        [(key: asset.files.preview, data: made.image.preview), (key: asset.files.thumbnail, data: made.image.thumbnail)]
    }

    package func record(_ asset: LibraryAsset, _ made: Made, jobID: String) async throws -> LibraryAsset? {
        let image = made.image
        return try await assets.markReady(
            asset, jobID: jobID, width: image.width, height: image.height,
            takenAt: asset.format.isVideo ? nil : try await captured(image.takenAt, owner: asset.userID),
            derivativeBytes: Int64(image.preview.count + image.thumbnail.count) + made.playableBytes, video: made.video,
            signals: image.signals)
    }

    package func settleUnrecorded(_ asset: LibraryAsset) async throws {
        if try await !assets.isRecorded(asset.files) { try await pendingWrites.abandon(asset.files) }
    }

    package func announce(_ asset: LibraryAsset, _ recorded: LibraryAsset?) async { await feed.changed(asset.userID) }

    package func subject(of asset: LibraryAsset) -> RenderedSubject {
        RenderedSubject(kind: .libraryAsset, id: asset.id, scope: asset.userID, previewKey: asset.files.preview)
    }

    /// The file's capture time: its moment (a floating time placed in the owner's zone, for the timeline's order)
    /// and the clock where it was taken, which is what people see.
    private func captured(_ time: CaptureTime?, owner: String) async throws -> LibraryRepository.CapturedAt? {
        guard let time else { return nil }
        return .init(time, zone: try await ownerZone(owner))
    }

    /// A video's poster rendered like a photo, and its playable copy stored (when the original does not play as it is).
    private func renderVideo(_ asset: LibraryAsset, with derivatives: Derivatives) async throws -> Made {
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
        return Made(image: made.poster, video: facts, playableBytes: playable.kind == .derivative ? playable.size : 0)
    }

    /// Gave up after many tries (storage trouble): the asset stays, marked failed, its original kept.
    package func fail(assetID: String, jobID: String) async throws {
        guard let asset = try await assets.find(id: assetID) else { return try await pipeline.jobs.complete(jobID) }
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
