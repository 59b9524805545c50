import DisposableCore
import DisposablePlatform
import Foundation
import Logging
import NIOPosix

/// The check `Ingest` makes of every picture before anything decodes it — event photos, library assets, profile
/// pictures: a format we accept, recognised from its bytes; a whole file; at most
/// `maxPixels`, all frames together; and, for a large picture, enough bytes to be a real photo.
package struct ImageCheck: Sendable {
    package let images: any ImageProcessor
    package let maxPixels: Int
    package let logger: Logger

    /// Up to this many pixels, any file size is fine (screenshots, drawings, scans compress well).
    package static let pixelsAlwaysAccepted = 24_000_000
    /// Beyond, at least one byte of file per this many pixels: real photos have 2–8.
    package static let pixelsPerByte: Int64 = 16

    /// The format from the bytes, and the size from the header — before anything is decoded (MED-3).
    package func validate(_ staged: StagedUpload) async throws -> (ImageFormat, ImageHeader) {
        guard staged.byteSize > 0 else { throw Problem.emptyFile }
        guard let format = ImageFormat(sniffing: staged.head) else { throw Problem.picturesOnly }
        let broken = Problem(
            .unprocessableContent, "unreadable-image", title: "Broken photo",
            detail: "This file looks like a \(format.rawValue.uppercased()) image but cannot be read: it may be damaged or cut short.")
        let header: ImageHeader
        do {
            header = try await images.probe(staged.file.path, format: format)
        } catch is UndecodableImage {
            throw broken
        } catch let error as ImageLibraryUnavailable {
            logger.error("\(error.description)")
            throw Problem.imagesUnavailable
        }
        if format == .jpeg, !staged.isWholeJPEG { throw broken }
        var frames = header.pages
        if format == .gif {
            let path = staged.file.path
            guard let counted = try await NIOThreadPool.singleton.runIfActive({ try GIFStructure.frames(fileAt: path) }) else { throw broken }
            frames = max(frames, counted)
        }
        let pixels = header.width * header.height * frames
        guard header.width > 0, header.height > 0, pixels <= maxPixels else {
            throw Problem(
                .unprocessableContent, "too-many-pixels", title: "Image too large",
                detail: "This image is \(header.width)×\(header.height) pixels\(frames > 1 ? " × \(frames) frames" : ""), "
                    + "more than the \(maxPixels / 1_000_000) megapixels allowed.")
        }
        // A photo of many megapixels is megabytes. One that is not (a 100-megapixel PNG of 1 MB) costs as
        // much to decode as a real one while costing its sender nothing to send.
        if pixels > Self.pixelsAlwaysAccepted, Int64(pixels) > staged.byteSize * Self.pixelsPerByte {
            throw Problem(
                .unprocessableContent, "too-many-pixels", title: "Image too large",
                detail: "This image is \(pixels / 1_000_000) megapixels in a file of only \(staged.byteSize / 1_000) KB. "
                    + "Photos that large are welcome as cameras save them; send it at a smaller size.")
        }
        return (format, header)
    }
}
