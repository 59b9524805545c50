import Foundation
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The third review's corpus: blocks that carry the location in forms a careful reader accepts although no
/// standard names them (exiftool reads 48.8584, 2.2945 from each). Nothing rewritten may reach others with them.
@Suite("Location redaction: variants readers accept")
struct LocationVariantsTests {
    typealias Placement = LocationRedactionTests.Placement

    static let qualifiedXMP = Array(LocationRedactionTests.qualifiedXMP.utf8)

    /// A plain PNG with these chunks right after its header.
    static func pngWithChunks(_ chunks: [(String, [UInt8])]) async throws -> Data {
        let png = [UInt8](try await TestImages.image("png", width: 320, height: 240))
        var inserted: [UInt8] = []
        for (type, data) in chunks {
            let body = Array(type.utf8) + data
            let crc = ZipEncoder.crc(0, ByteBuffer(bytes: body))
            inserted += bytes32(UInt32(data.count)) + body + bytes32(crc)
        }
        return Data(png[..<33] + inserted + png[33...])
    }

    private static func bytes32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static let placements: [Placement] = [
        Placement(
            name: "JPEG, Kodak's APP1 Exif\\0\\xFF", suffix: "jpg",
            make: {
                try await LocationRedactionTests.withSegments([
                    (0xE1, Array("Exif".utf8) + [0, 0xFF] + (try await LocationRedactionTests.exifTIFF()))
                ])
            }),
        Placement(
            name: "JPEG, APP1 with 4 bytes before Exif\\0\\0", suffix: "jpg",
            make: {
                try await LocationRedactionTests.withSegments([
                    (0xE1, [0, 0, 0, 0] + Array("Exif".utf8) + [0, 0] + (try await LocationRedactionTests.exifTIFF()))
                ])
            }),
        Placement(
            name: "JPEG, XMP behind XMP\\0", suffix: "jpg",
            make: { try await LocationRedactionTests.withSegments([(0xE1, Array("XMP".utf8) + [0] + qualifiedXMP)]) }),
        Placement(
            name: "JPEG, a bare <?xpacket APP1", suffix: "jpg", make: { try await LocationRedactionTests.withSegments([(0xE1, qualifiedXMP)]) }),
        Placement(
            name: "JPEG, the XMP header without its NUL", suffix: "jpg",
            make: { try await LocationRedactionTests.withSegments([(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + qualifiedXMP)]) }),
        Placement(
            name: "PNG, an exIf chunk", suffix: "png", make: { try await pngWithChunks([("exIf", try await LocationRedactionTests.exifTIFF())]) }),
        Placement(name: "PNG, a tXMP chunk", suffix: "png", make: { try await pngWithChunks([("tXMP", qualifiedXMP)]) }),
    ]

    @Test("The location is gone from each variant, the size is the same, and the picture still decodes", arguments: placements)
    func redacted(placement: Placement) async throws {
        let original = try await placement.make()
        let before = try await LocationRedactionTests.metadata(original, suffix: placement.suffix)
        #expect(before.contains("48.858437"), "the fixture carries the location: \(before)")

        let file = try writeTemporaryFile(original, suffix: "." + placement.suffix)
        defer { try? FileManager.default.removeItem(at: file) }
        var bytes = [UInt8](original)
        try LocationRedactor.redaction(forFileAt: file.path).apply(to: &bytes)
        let cleaned = Data(bytes)

        #expect(cleaned.count == original.count)
        let after = try await LocationRedactionTests.metadata(cleaned, suffix: placement.suffix)
        #expect(!after.contains("48.858") && !after.contains("2.2944"), "\(after)")
        let decoded = try writeTemporaryFile(cleaned, suffix: "." + placement.suffix)
        defer { try? FileManager.default.removeItem(at: decoded) }
        let header = try await runTool("/usr/bin/vipsheader", [decoded.path])
        #expect(header.status == 0 && header.output.contains("320x240"), "\(header.output)")
    }
}
