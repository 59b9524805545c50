import Foundation
import TestImageMaker

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// Real image files made for the tests with Debian's tools: `vips` (libvips-tools) and `exiftool`.
enum TestImages {
    /// A photo-like JPEG (noise compresses like a photo) of the given size, optionally with EXIF set by exiftool
    /// (e.g. `["-Orientation#=6", "-DateTimeOriginal=2026:06:20 18:30:00"]`).
    static func jpeg(width: Int = 640, height: Int = 480, exif: [String] = []) async throws -> Data {
        try await make(width: width, height: height, format: "jpg[Q=85]", exif: exif)
    }

    /// The same kind of image in another format: "png", "webp", "heic", "avif", "gif".
    static func image(_ format: String, width: Int = 320, height: Int = 240) async throws -> Data {
        try await make(width: width, height: height, format: format, exif: [])
    }

    /// A 12 MP-like JPEG with structure at every place (blurred noise, stretched to full contrast): a photo made
    /// smaller, or turned, shows it — unlike plain noise, which averages to grey.
    static func structured(width: Int, height: Int, exif: [String] = []) async throws -> Data {
        try await inDirectory { directory in
            let paths = ["noise.v", "blurred.v", "stretched.v", "colour.v"].map { directory.appendingPathComponent($0).path }
            let (noise, blurred, stretched, colour) = (paths[0], paths[1], paths[2], paths[3])
            let output = directory.appendingPathComponent("photo.jpg").path
            try await run("/usr/bin/vips", ["gaussnoise", noise, String(width), String(height), "--mean", "128", "--sigma", "80"], modules: false)
            try await run("/usr/bin/vips", ["gaussblur", noise, blurred, "16"], modules: false)
            // The blur leaves a deviation of ≈ 1.7 around 128: ×23 makes it ≈ 40.
            try await run("/usr/bin/vips", ["linear", blurred, stretched, "23", " -2816"], modules: false)
            try await run("/usr/bin/vips", ["colourspace", stretched, colour, "srgb"], modules: false)
            try await run("/usr/bin/vips", ["copy", colour, output + "[Q=90]"], modules: false)
            if !exif.isEmpty { try await run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + exif + [output]) }
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    /// What libvips' own `thumbnail` makes of an image at `size` (upright, shrink-on-load, lanczos3): a reference.
    static func libvipsThumbnail(_ image: Data, size: Int) async throws -> Data {
        try await inDirectory { directory in
            let (input, output) = (directory.appendingPathComponent("in.jpg").path, directory.appendingPathComponent("out.png").path)
            try image.write(to: URL(fileURLWithPath: input))
            try await run("/usr/bin/vips", ["thumbnail", input, output, String(size)])
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    /// A phone's first look at `image`: upright, at most `size` on its longest side, re-encoded without metadata.
    static func firstLook(of image: Data, size: Int = 640) async throws -> Data {
        try await inDirectory { directory in
            let (input, output) = (directory.appendingPathComponent("in").path, directory.appendingPathComponent("out.jpg").path)
            try image.write(to: URL(fileURLWithPath: input))
            try await run("/usr/bin/vips", ["thumbnail", input, output + "[Q=80,strip]", String(size)])
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    /// A first look as `firstLook(of:)` makes it, in CMYK.
    static func firstLookInCMYK(of image: Data) async throws -> Data {
        try await inDirectory { directory in
            let (input, output) = (directory.appendingPathComponent("in.jpg").path, directory.appendingPathComponent("cmyk.jpg").path)
            try await firstLook(of: image, size: 320).write(to: URL(fileURLWithPath: input))
            try await run("/usr/bin/vips", ["colourspace", input, output + "[Q=60,strip]", "cmyk"])
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    /// A flat grey JPEG: many pixels in few bytes. `exif` as for `jpeg`.
    static func flat(width: Int, height: Int, exif: [String] = []) async throws -> Data {
        try await inDirectory { directory in
            let output = directory.appendingPathComponent("flat.jpg").path
            try await run("/usr/bin/vips", ["black", output + "[strip]", String(width), String(height)], modules: false)
            if !exif.isEmpty { try await run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + exif + [output]) }
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    /// Peak signal-to-noise ratio in dB between two images of the same size (any format vips reads), or nil when
    /// their sizes or bands differ.
    static func psnr(_ a: Data, _ b: Data) async throws -> Double? {
        let (first, second) = (try await pixels(a), try await pixels(b))
        guard first.count == second.count, !first.isEmpty else { return nil }
        let squares = zip(first, second).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(first.count)))
    }

    /// The decoded pixels, row by row.
    private static func pixels(_ image: Data) async throws -> [UInt8] {
        try await inDirectory { directory in
            let (input, output) = (directory.appendingPathComponent("image").path, directory.appendingPathComponent("pixels.raw").path)
            try image.write(to: URL(fileURLWithPath: input))
            try await run("/usr/bin/vips", ["rawsave", input, output])
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        }
    }

    private static func inDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// An animated GIF of `frames` frames on a `width`×`height` screen, written byte by byte
    /// (each frame a 1×1 patch: tiny file, huge decoded size).
    static func animatedGIF(frames: Int, width: Int, height: Int) -> Data {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0]  // 2-colour global table
        bytes += [0, 0, 0, 255, 255, 255]
        let frame: [UInt8] =
            [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00]  // 0.1 s per frame
            + [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0x00]
            + [0x02, 0x02, 0x44, 0x01, 0x00]  // LZW: clear, pixel 0, end
        for _ in 0..<frames { bytes += frame }
        return Data(bytes + [0x3B])
    }

    private static func make(width: Int, height: Int, format: String, exif: [String]) async throws -> Data {
        let noise = try noise(width: width, height: height, suffix: "." + format)
        guard !exif.isEmpty else { return noise }
        return try await inDirectory { directory in
            let output = directory.appendingPathComponent("image.\(format.prefix { $0 != "[" })").path
            try noise.write(to: URL(fileURLWithPath: output))
            try await run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + exif + [output])
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }

    /// Noise (sigma 40 around 128) saved as `suffix` says (".jpg[Q=85]", ".png"…), by libvips in this process: the
    /// suite makes thousands, and each `vips` process costs more to start (a hundred libraries) than to draw.
    private static func noise(width: Int, height: Int, suffix: String) throws -> Data {
        var buffer: UnsafeMutableRawPointer? = nil
        var length = 0
        let capacity = 512
        var error = [CChar](repeating: 0, count: capacity)
        guard tim_noise(Int32(width), Int32(height), 40, suffix, &buffer, &length, &error, capacity) == 0, let buffer else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw TestSetupError("libvips could not make a \(width)×\(height) \(suffix): \(message)")
        }
        defer { tim_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// `modules`: whether libvips loads its plugins (HEIF and AVIF are one); without them it starts in less time.
    private static func run(_ tool: String, _ arguments: [String], modules: Bool = true) async throws {
        let (status, output) = try await runTool(tool, arguments, environment: modules ? nil : withoutVipsModules)
        guard status == 0 else { throw TestSetupError("\(tool) \(arguments.joined(separator: " ")) failed: \(output)") }
    }

    /// The environment with libvips pointed at a folder with no plugins in it.
    private static let withoutVipsModules = ProcessInfo.processInfo.environment.merging(["VIPSHOME": "/nonexistent"]) { $1 }

    /// Width and height of a JPEG, from its SOF marker.
    static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](data)
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }
}

extension Data {
    var sha256Hex: String {
        get async throws {
            let file = try writeTemporaryFile(self, suffix: ".bin")
            defer { try? FileManager.default.removeItem(at: file) }
            return String(try await runTool("/usr/bin/sha256sum", [file.path]).output.prefix(64))
        }
    }
}
