import Foundation

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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let noise = directory.appendingPathComponent("noise.v").path
        let ext = String(format.prefix { $0 != "[" })
        let output = directory.appendingPathComponent("image.\(ext)").path
        try await run("/usr/bin/vips", ["gaussnoise", noise, String(width), String(height), "--mean", "128", "--sigma", "40"])
        try await run("/usr/bin/vips", ["copy", noise, output + format.dropFirst(ext.count)])
        if !exif.isEmpty { try await run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + exif + [output]) }
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    private static func run(_ tool: String, _ arguments: [String]) async throws {
        let (status, output) = try await runTool(tool, arguments)
        guard status == 0 else { throw TestSetupError("\(tool) \(arguments.joined(separator: " ")) failed: \(output)") }
    }

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
