import DisposableCore
import DisposablePlatform
import Foundation
import NIOPosix

/// What every target shows of a stored original (MED-1): a picture's preview and thumbnail, or a video's — made from
/// its poster frame — with the copy browsers play. The event's and the library's renderers differ only in what they
/// do around this (the event transcodes every video, the library only those browsers cannot play, within a budget).
package struct Derivatives: Sendable {
    package let blobs: any BlobStore
    package let images: any ImageProcessor
    /// Nil where ffmpeg is not installed: a stored video then fails to render.
    package let videos: VideoProcessor?
    /// Where ffmpeg writes (the staging folder: on the local store's filesystem, so storing a copy is a rename).
    package let scratch: URL

    package init(blobs: any BlobStore, images: any ImageProcessor, videos: VideoProcessor?, scratch: URL) {
        self.blobs = blobs
        self.images = images
        self.videos = videos
        self.scratch = scratch
    }

    package struct Video: Sendable {
        /// The poster frame rendered like a photo.
        package let poster: RenderedImage
        package let info: VideoInfo

        package init(poster: RenderedImage, info: VideoInfo) {
            self.poster = poster
            self.info = info
        }
    }

    /// A picture's renders (both, or one phase of an event photo's).
    package func picture(key: String, format: ImageFormat, parts: RenderParts = .both) async throws -> RenderedImage {
        try await blobs.withLocalFile(key: key) { path in try await images.render(path, format: format, parts: parts) }
    }

    /// A video's renders. `admit` may step back before ffmpeg runs (`RenderLater`); `transcode` makes a playable copy
    /// even of a video browsers play as it is; `keep` stores that copy (sealed: its SHA-256 and size) while it exists.
    /// A file ffprobe or ffmpeg cannot read is `UndecodableImage`, as a broken picture is.
    package func video(
        key: String, limits: VideoLimits, transcode: Bool, lane: VideoTool.Lane,
        admit: (VideoInfo) async throws -> Void = { _ in },
        keep: (_ copy: URL, _ sha256: String, _ size: Int64) async throws -> Void
    ) async throws -> Video {
        guard let videos else { throw UndecodableImage(description: "no ffmpeg on this server") }
        return try await blobs.withLocalFile(key: key) { path in
            let scratch = scratch.appendingPathComponent("video-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let made: RenderedVideo
            do {
                let info = try await videos.inspect(path, limits: limits)
                try await admit(info)
                made = try await videos.render(path, info: info, transcode: transcode, maxSeconds: limits.maxSeconds, into: scratch, lane: lane)
            } catch let failure as VideoTool.Failed {
                throw UndecodableImage(description: failure.description)
            } catch is Problem {
                throw UndecodableImage(description: "not a video ffprobe reads")
            }
            let poster = try await images.render(made.poster.path, format: .jpeg)
            if let copy = made.playable {
                let (sha256, size) = try await NIOThreadPool.singleton.runIfActive { try DurableFiles.seal(copy.path) }
                try await keep(copy, sha256, size)
            }
            return Video(poster: poster, info: made.info)
        }
    }
}
