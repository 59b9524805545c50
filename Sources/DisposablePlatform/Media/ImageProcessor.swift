import DisposableCore
import Foundation
import NIOPosix
import VipsLoader

/// What the header of an image file says, read without decoding it.
public struct ImageHeader: Sendable {
    /// As stored, before the orientation.
    public let width: Int
    public let height: Int
    public let pages: Int
    /// EXIF orientation 1…8: 5…8 show the picture on its side.
    public var orientation = 1
    public var takenAt: CaptureTime? = nil

    /// The size as the photo is shown: turned by its orientation.
    public var displayed: (width: Int, height: Int) { (5...8).contains(orientation) ? (height, width) : (width, height) }
}

/// Which derivatives a render makes: both, from one decode, or the preview alone — for a photo shown with its
/// thumbnail by an earlier version, which made an event photo's thumbnail first and its preview in a second decode.
public enum RenderParts: Sendable {
    case both
    /// The preview alone (the same bytes as in `.both`); the thumbnail is left empty and there are no signals.
    case preview
}

/// A photo's derivatives (JPEG) and what was read from its original.
public struct RenderedImage: Sendable {
    public let width: Int
    public let height: Int
    public let takenAt: CaptureTime?
    public let preview: Data
    public let thumbnail: Data
    /// The selection's measures of the picture (nil when it is too small to measure).
    public var signals: PhotoSignals? = nil

    package init(width: Int, height: Int, takenAt: CaptureTime?, preview: Data, thumbnail: Data, signals: PhotoSignals? = nil) {
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.preview = preview
        self.thumbnail = thumbnail
        self.signals = signals
    }
}

/// A phone's first look as the server keeps it: written again, with nothing of the sender's file but its picture.
public struct FirstLookImage: Sendable {
    public let width: Int
    public let height: Int
    public let jpeg: Data
    /// Its grey miniature, as `PhotoSignals.miniature` reads the server's thumbnail: what the two are compared by.
    public let miniature: [UInt8]

    package init(width: Int, height: Int, jpeg: Data, miniature: [UInt8]) {
        self.width = width
        self.height = height
        self.jpeg = jpeg
        self.miniature = miniature
    }
}

/// Why a first look was refused.
public enum FirstLookFault: Error, Sendable {
    case tooLarge(width: Int, height: Int)
    /// EXIF, XMP or IPTC: where a location or a name would hide.
    case metadata
    /// CMYK or RGB samples, which a canvas never writes and browsers may show wrongly.
    case colours
    case undecodable(String)
    case unavailable(ImageLibraryUnavailable)
}

/// The image file is not something we can decode; the message is libvips's.
public struct UndecodableImage: Error, CustomStringConvertible {
    public let description: String

    package init(description: String) {
        self.description = description
    }
}

/// Makes previews and thumbnails (MED-1). libvips, in-process.
public protocol ImageProcessor: Sendable {
    func probe(_ path: String, format: ImageFormat) async throws -> ImageHeader
    /// A phone's small JPEG of its photo, checked (at most `maxSide` on each side, no metadata, decodable to its
    /// end) and encoded again.
    func firstLook(_ jpeg: Data, maxSide: Int) async throws(FirstLookFault) -> FirstLookImage
    func render(_ path: String, format: ImageFormat, parts: RenderParts) async throws -> RenderedImage
    /// A JPEG collage of the images at `paths` (previews we made), in `columns`, under a title and a subtitle.
    func collage(_ paths: [String], columns: Int, width: Int, title: String, subtitle: String) async throws -> Data
}

extension ImageProcessor {
    package func render(_ path: String, format: ImageFormat) async throws -> RenderedImage {
        try await render(path, format: format, parts: .both)
    }
}

/// The libvips shim could not be opened: a broken installation, not a broken photo (answered with 503).
public struct ImageLibraryUnavailable: Error, CustomStringConvertible {
    public let description: String

    package init(description: String) {
        self.description = description
    }
}

/// libvips through the C shim, opened on first use (see VipsLoader). Calls block, so they run on thread pools; those
/// that ask libvips for pixels on the rendering pool, at a low CPU priority (`WorkPools`).
public struct VipsImageProcessor: ImageProcessor {
    public static let previewSize = 1600
    public static let thumbnailSize = 400
    public static let quality: Int32 = 82

    /// The shim sits next to the executable (and the test bundle) in the build folder.
    package static let libraryPath: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("libDisposableVips.so").path
    }()

    /// Opened once, by the first probe or render.
    private static let loaded: Result<Void, ImageLibraryUnavailable> = {
        var error = [CChar](repeating: 0, count: 512)
        guard vsl_load(libraryPath, &error, error.count) == 0 else {
            return .failure(ImageLibraryUnavailable(description: "libvips could not be loaded from \(libraryPath): \(message(error))"))
        }
        return .success(())
    }()

    /// Checks that the shim is where it should be, without loading it (a missing file stops the start-up).
    public init() throws {
        guard FileManager.default.isReadableFile(atPath: Self.libraryPath) else {
            throw ImageLibraryUnavailable(
                description: "\(Self.libraryPath) is missing: build with `swift build` (all products), "
                    + "or copy libDisposableVips.so next to the disposable binary.")
        }
    }

    public func probe(_ path: String, format: ImageFormat) async throws -> ImageHeader {
        try await WorkPools.requests.runIfActive {
            try Self.loaded.get()
            var header = vs_header()
            var error = [CChar](repeating: 0, count: 512)
            guard vsl_probe(path, format.loader, &header, &error, error.count) == 0 else {
                throw UndecodableImage(description: Self.message(error))
            }
            let takenAt = withUnsafeBytes(of: header.taken_at) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return ImageHeader(
                width: Int(header.width), height: Int(header.height), pages: Int(max(1, header.pages)), orientation: Int(header.orientation),
                takenAt: CaptureTime(exif: takenAt))
        }
    }

    public func firstLook(_ jpeg: Data, maxSide: Int) async throws(FirstLookFault) -> FirstLookImage {
        let outcome: Result<FirstLookImage, FirstLookFault>
        do {
            // libjpeg alone, in this thread: it starts no libvips worker, so it keeps the requests' priority.
            outcome = try await WorkPools.firstLooks.runIfActive {
                if case .failure(let unavailable) = Self.loaded { return .failure(.unavailable(unavailable)) }
                var result = vs_derivatives()
                var error = [CChar](repeating: 0, count: 512)
                let status = jpeg.withUnsafeBytes { bytes in
                    vsl_first_look(bytes.baseAddress, bytes.count, Int32(maxSide), &result, &error, error.count)
                }
                switch status {
                case 0: break
                case Int32(VS_FIRST_LOOK_TOO_LARGE): return .failure(.tooLarge(width: Int(result.width), height: Int(result.height)))
                case Int32(VS_FIRST_LOOK_HAS_METADATA): return .failure(.metadata)
                case Int32(VS_FIRST_LOOK_NOT_YCBCR): return .failure(.colours)
                default: return .failure(.undecodable(Self.message(error)))
                }
                defer { vsl_free(&result) }
                return .success(
                    FirstLookImage(
                        width: Int(result.width), height: Int(result.height),
                        jpeg: result.thumbnail.map { Data(bytes: $0, count: result.thumbnail_length) } ?? Data(),
                        miniature: Self.miniature(result)))
            }
        } catch {
            throw .undecodable("the server is shutting down")
        }
        return try outcome.get()
    }

    /// The miniature of a first look's block means, however few (a first look may be 16 pixels, two blocks, high).
    private static func miniature(_ result: vs_derivatives) -> [UInt8] {
        guard let grey = result.grey, result.grey_width > 0, result.grey_height > 0 else { return [] }
        let (width, height) = (Int(result.grey_width), Int(result.grey_height))
        let pixels = Array(UnsafeBufferPointer(start: grey.assumingMemoryBound(to: UInt8.self), count: width * height))
        return PhotoSignals.differenceHash(pixels, width: width, height: height).miniature
    }

    public func render(_ path: String, format: ImageFormat, parts: RenderParts) async throws -> RenderedImage {
        try await WorkPools.rendering.runIfActive {
            vsl_lower_thread_priority()
            try Self.loaded.get()
            var result = vs_derivatives()
            var error = [CChar](repeating: 0, count: 512)
            guard
                vsl_render(
                    path, format.loader, Int32(Self.previewSize), parts == .preview ? 0 : Int32(Self.thumbnailSize),
                    Int32(PhotoSignals.analysisSize), Self.quality, &result, &error, error.count) == 0
            else {
                throw UndecodableImage(description: Self.message(error))
            }
            defer { vsl_free(&result) }
            let takenAt = withUnsafeBytes(of: result.taken_at) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return RenderedImage(
                width: Int(result.width), height: Int(result.height), takenAt: CaptureTime(exif: takenAt),
                preview: result.preview.map { Data(bytes: $0, count: result.preview_length) } ?? Data(),
                thumbnail: result.thumbnail.map { Data(bytes: $0, count: result.thumbnail_length) } ?? Data(),
                signals: Self.signals(result))
        }
    }

    private static func signals(_ result: vs_derivatives) -> PhotoSignals? {
        result.grey.flatMap { grey in
            PhotoSignals(
                grey: Array(UnsafeBufferPointer(start: grey.assumingMemoryBound(to: UInt8.self), count: Int(result.grey_width * result.grey_height))),
                width: Int(result.grey_width), height: Int(result.grey_height))
        }
    }

    public func collage(_ paths: [String], columns: Int, width: Int, title: String, subtitle: String) async throws -> Data {
        try await WorkPools.rendering.runIfActive {
            vsl_lower_thread_priority()
            try Self.loaded.get()
            let copies = paths.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var error = [CChar](repeating: 0, count: 512)
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            let status = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
                vsl_collage(
                    list.baseAddress, Int32(list.count), Int32(columns), Int32(width), title, subtitle, Self.quality, &buffer, &length, &error,
                    error.count)
            }
            guard status == 0, let buffer else { throw UndecodableImage(description: Self.message(error)) }
            defer { vsl_free_buffer(buffer) }
            return Data(bytes: buffer, count: length)
        }
    }

    private static func message(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
