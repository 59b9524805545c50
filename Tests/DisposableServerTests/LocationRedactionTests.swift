import Foundation
import NIOCore
import Testing

@testable import DisposableServer

/// MED-2 (issue 19, item 7): the location leaves an original served to others wherever it was put — EXIF or
/// XMP, in JPEG (also behind large segments, and in an image embedded after the first), PNG, WebP, HEIC and
/// GIF — and the file stays the same size and still decodes.
@Suite("Location redaction (MED-2)")
struct LocationRedactionTests {
    static let latitude = "48.858437"
    static let longitude = "2.294481"
    static let tags = [
        "-GPSLatitude=\(latitude)", "-GPSLatitudeRef=N", "-GPSLongitude=\(longitude)", "-GPSLongitudeRef=E",
        "-XMP:GPSLatitude=\(latitude)N", "-XMP:GPSLongitude=\(longitude)E", "-Make=Pixel",
    ]

    struct Placement: Sendable, CustomTestStringConvertible {
        let name: String
        let suffix: String
        let make: @Sendable () async throws -> Data
        var testDescription: String { name }
    }

    static func tagged(_ format: String, _ tags: [String] = LocationRedactionTests.tags) async throws -> Data {
        let image = try await TestImages.image(format, width: 320, height: 240)
        let file = try writeTemporaryFile(image, suffix: "." + format)
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await runTool("/usr/bin/exiftool", ["-q", "-overwrite_original"] + tags + [file.path])
        return try Data(contentsOf: file)
    }

    static let placements: [Placement] = [
        Placement(name: "JPEG, EXIF and XMP", suffix: "jpg", make: { try await tagged("jpg") }),
        Placement(name: "JPEG, XMP only", suffix: "jpg", make: { try await tagged("jpg", tags.filter { $0.hasPrefix("-XMP") }) }),
        Placement(
            name: "JPEG, EXIF behind 320 KB of APP2 segments", suffix: "jpg",
            make: {
                let file = try await tagged("jpg", Array(tags.prefix(4)))
                // SOI, five 64 KB APP2 segments, then everything the tagged file has after its SOI.
                var bytes = Data([0xFF, 0xD8])
                for _ in 0..<5 { bytes += Data([0xFF, 0xE2, 0xFF, 0xFF]) + Data(repeating: 0x41, count: 0xFFFD) }
                return bytes + file.dropFirst(2)
            }),
        Placement(
            name: "JPEG, EXIF in an image embedded after the first", suffix: "jpg",
            make: { try await TestImages.jpeg(width: 320, height: 240) + (try await tagged("jpg", Array(tags.prefix(4)))) }),
        Placement(name: "PNG, eXIf and iTXt", suffix: "png", make: { try await tagged("png") }),
        Placement(name: "WebP, EXIF and XMP chunks", suffix: "webp", make: { try await tagged("webp") }),
        Placement(name: "HEIC, Exif and XMP items", suffix: "heic", make: { try await tagged("heic") }),
        Placement(name: "GIF, XMP application extension", suffix: "gif", make: { try await tagged("gif") }),
    ]

    /// Every tag exiftool finds, as JSON text.
    static func metadata(_ data: Data, suffix: String) async throws -> String {
        let file = try writeTemporaryFile(data, suffix: "." + suffix)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await runTool("/usr/bin/exiftool", ["-a", "-G1", "-n", "-j", "-ee", file.path]).output
    }

    /// Readers find an embedded image through the first's MPF index; here the test looks at it directly.
    static func inspected(_ data: Data, _ placement: Placement) -> Data {
        guard placement.name.contains("embedded") else { return data }
        let bytes = [UInt8](data)
        let second = (2..<(bytes.count - 2)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD8 && bytes[$0 + 2] == 0xFF }!
        return Data(bytes[second...])
    }

    @Test("The location is gone, the size is the same, and the picture still decodes", arguments: placements)
    func redacted(placement: Placement) async throws {
        let original = try await placement.make()
        let before = try await Self.metadata(Self.inspected(original, placement), suffix: placement.suffix)
        #expect(before.contains(Self.latitude), "the fixture carries the location: \(before)")

        let file = try writeTemporaryFile(original, suffix: "." + placement.suffix)
        defer { try? FileManager.default.removeItem(at: file) }
        let redaction = try LocationRedactor.redaction(forFileAt: file.path)
        var bytes = [UInt8](original)
        redaction.apply(to: &bytes)
        let cleaned = Data(bytes)

        #expect(cleaned.count == original.count)
        let after = try await Self.metadata(Self.inspected(cleaned, placement), suffix: placement.suffix)
        #expect(!after.contains(Self.latitude) && !after.contains(Self.longitude), "\(after)")
        let decoded = try writeTemporaryFile(cleaned, suffix: "." + placement.suffix)
        defer { try? FileManager.default.removeItem(at: decoded) }
        let header = try await runTool("/usr/bin/vipsheader", [decoded.path])
        #expect(header.status == 0 && header.output.contains("320x240"), "\(header.output)")
        if placement.name.hasPrefix("JPEG, EXIF and") { #expect(after.contains("Pixel"), "other EXIF stays") }
    }

    @Test("Redactions patch streamed chunks exactly as they patch the whole file")
    func chunked() async throws {
        let original = try await Self.tagged("jpg")
        let file = try writeTemporaryFile(original, suffix: ".jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        let redaction = try LocationRedactor.redaction(forFileAt: file.path)
        var whole = [UInt8](original)
        redaction.apply(to: &whole)
        var pieces: [UInt8] = []
        var offset = 0
        while offset < original.count {
            let length = min(7, original.count - offset)
            var chunk = ByteBuffer(bytes: original[offset..<(offset + length)])
            redaction.apply(to: &chunk, at: Int64(offset))
            pieces += chunk.readableBytesView
            offset += length
        }
        #expect(pieces == whole)
    }
}
