import Foundation
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// MED-2: the location leaves an original served to others wherever it was put — EXIF or
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
        // The second review: XMP that a reader finds but a careless walk does not.
        Placement(
            name: "JPEG, XMP with unqualified elements under a default namespace", suffix: "jpg",
            make: { try await withSegments([(0xE1, xmpSignature + Array(unqualifiedXMP.utf8))]) }),
        Placement(
            name: "JPEG, XMP in UTF-16", suffix: "jpg",
            make: {
                try await withSegments([(0xE1, xmpSignature + [0xFE, 0xFF] + qualifiedXMP.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })])
            }),
        Placement(
            name: "JPEG, Photoshop's APP13 with EXIF and XMP (8BIM 0x0422, 0x0424)", suffix: "jpg",
            make: {
                let resources =
                    photoshopResource(0x0404, [0x1C, 0x02, 0x00, 0x00, 0x02, 0x00, 0x04])
                    + photoshopResource(0x0422, try await exifTIFF()) + photoshopResource(0x0424, Array(qualifiedXMP.utf8))
                return try await withSegments([(0xED, Array("Photoshop 3.0".utf8) + [0] + resources)])
            }),
    ]

    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    static func packet(_ description: String) -> String {
        """
        <?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
        \(description)
        </rdf:RDF></x:xmpmeta>
        <?xpacket end='w'?>
        """
    }

    /// 48.858437 N, 2.294481 E as XMP writes them: degrees and decimal minutes.
    static let unqualifiedXMP = packet(
        "<rdf:Description rdf:about='' xmlns='http://ns.adobe.com/exif/1.0/'>"
            + "<GPSLatitude>48,51.50622N</GPSLatitude><GPSLongitude>2,17.66886E</GPSLongitude></rdf:Description>")
    static let qualifiedXMP = packet(
        "<rdf:Description rdf:about='' xmlns:exif='http://ns.adobe.com/exif/1.0/' exif:GPSLatitude='48,51.50622N'"
            + " exif:GPSLongitude='2,17.66886E'/>")

    /// A plain JPEG with these (marker, payload) segments right after its SOI.
    static func withSegments(_ segments: [(UInt8, [UInt8])]) async throws -> Data {
        let jpeg = try await TestImages.jpeg(width: 320, height: 240)
        var bytes = Data([0xFF, 0xD8])
        for (marker, payload) in segments {
            let length = payload.count + 2
            bytes += Data([0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
        }
        return bytes + jpeg.dropFirst(2)
    }

    /// One Photoshop image resource: `8BIM`, its id, an empty name, its length, its data (each padded to even).
    static func photoshopResource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
        let length = UInt32(data.count)
        return Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
            + [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + data
            + (data.count % 2 == 1 ? [0] : [])
    }

    /// The TIFF structure of an EXIF block with the location, as exiftool writes it.
    static func exifTIFF() async throws -> [UInt8] {
        let tagged = [UInt8](try await tagged("jpg", Array(tags.prefix(4))))
        var index = 2
        while index + 10 < tagged.count {
            let length = Int(tagged[index + 2]) << 8 | Int(tagged[index + 3])
            if tagged[index + 1] == 0xE1, tagged[(index + 4)..<(index + 10)].elementsEqual(Array("Exif".utf8) + [0, 0]) {
                return Array(tagged[(index + 10)..<(index + 2 + length)])
            }
            index += 2 + length
        }
        throw TestSetupError("exiftool wrote no EXIF")
    }

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
        // exiftool converts the coordinates of properties it knows; others (an unprefixed name) it shows as written.
        #expect(before.contains(Self.latitude) || before.contains("48,51.50622N"), "the fixture carries the location: \(before)")

        let file = try writeTemporaryFile(original, suffix: "." + placement.suffix)
        defer { try? FileManager.default.removeItem(at: file) }
        let redaction = try LocationRedactor.redaction(forFileAt: file.path)
        var bytes = [UInt8](original)
        redaction.apply(to: &bytes)
        let cleaned = Data(bytes)

        #expect(cleaned.count == original.count)
        let after = try await Self.metadata(Self.inspected(cleaned, placement), suffix: placement.suffix)
        #expect(!after.contains(Self.latitude) && !after.contains(Self.longitude), "\(after)")
        #expect(!after.contains("48,51.50622N") && !after.contains("2,17.66886E"), "\(after)")
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
