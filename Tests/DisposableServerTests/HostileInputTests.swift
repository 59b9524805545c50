import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// MED-3: files made to hurt. Each gets a clear 4xx (or becomes a `failed` photo), the server stays up,
/// and nothing stray is left in storage.
@Suite("Hostile input (MED-3)")
struct HostileInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () async throws -> Data
        /// The refusal, or nil when the upload is accepted and must end `failed`.
        let status: HTTPResponse.Status?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "zero bytes", make: { Data() }, status: .unprocessableContent),
        Case(
            name: "truncated JPEG",
            make: {
                let j = try await TestImages.jpeg(); return j.prefix(j.count / 2)
            }, status: .unprocessableContent),
        Case(
            name: "JPEG header followed by junk", make: { try await TestImages.jpeg().prefix(600) + Data(repeating: 0x5A, count: 20_000) },
            status: .unprocessableContent),
        Case(
            name: "PNG cut short",
            make: {
                let p = try await TestImages.image("png", width: 300, height: 200); return p.prefix(p.count / 2)
            }, status: nil),
        Case(name: "PNG claiming 60000×60000", make: { pngHeader(width: 60_000, height: 60_000) }, status: .unprocessableContent),
        Case(
            name: "JPEG whose SOF claims 65000×65000", make: { try await jpegClaiming(width: 65_000, height: 65_000) }, status: .unprocessableContent),
        Case(
            name: "SVG with script", make: { Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8) },
            status: .unsupportedMediaType),
        Case(
            name: "HTML renamed .jpg", make: { Data("<!doctype html><html><body><script>alert(document.cookie)</script></body></html>".utf8) },
            status: .unsupportedMediaType),
        Case(
            name: "a PDF", make: { Data("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8) },
            status: .unsupportedMediaType),
        Case(name: "random bytes", make: { Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }) }, status: .unsupportedMediaType),
        Case(
            name: "ISO box of an unknown brand", make: { Data([0, 0, 0, 24] + Array("ftypmp42".utf8) + Array(repeating: 0, count: 40)) },
            status: .unsupportedMediaType),
        Case(name: "GIF header without an image", make: { Data("GIF89a".utf8) + Data([10, 0, 10, 0, 0, 0, 0]) }, status: .unprocessableContent),
    ]

    @Test("Hostile files get a clear 4xx or a failed photo, and leave nothing behind", arguments: cases)
    func hostileFile(_ hostile: Case) async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let response = try await app.upload(try await hostile.make(), event: f.event, token: f.guest)
            if let status = hostile.status {
                response.expectProblem(status)
                #expect(app.storedFiles().isEmpty, "\(app.storedFiles())")
            } else {
                #expect(response.status == .created, "\(response.text)")
                let photo = try await app.waitUntilProcessed(try #require(response.string("id")), token: f.guest)
                #expect(photo.string("status") == "failed")
                #expect(app.storedFiles().isEmpty, "a file libvips cannot decode is not kept: \(app.storedFiles())")
                try await app.call(.get, "/api/v1/photos/\(photo.string("id")!)/original", token: f.guest).expectProblem(.gone)
            }
            #expect(try await app.call(.get, "/healthz").status == .ok, "the server is still up")
            // and it still takes a real photo
            let good = try await app.upload(try await TestImages.jpeg(), event: f.event, token: f.guest)
            #expect(good.status == .created)
        }
    }

    @Test("A JPEG with a ZIP appended is accepted, but its derivatives carry nothing of the ZIP")
    func polyglotZip() async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let zipPart =
                Data([0x50, 0x4B, 0x03, 0x04]) + Data("secret.txt — hidden payload".utf8) + Data([0x50, 0x4B, 0x05, 0x06]) + Data(count: 18)
            let polyglot = try await TestImages.jpeg() + zipPart
            let id = try #require(try await app.upload(polyglot, event: f.event, token: f.guest).string("id"))
            let photo = try await app.waitUntilProcessed(id, token: f.guest)
            #expect(photo.string("status") == "ready")
            for kind in ["preview", "thumbnail"] {
                let bytes = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/\(kind)", token: f.guest).body)
                #expect(bytes.range(of: Data("hidden payload".utf8)) == nil)
                #expect(bytes.range(of: Data([0x50, 0x4B, 0x03, 0x04])) == nil)
            }
        }
    }

    @Test("A GIF with thousands of frames is refused from its header")
    func manyFrames() async throws {
        try await TestApp.run(.sqlite, configure: { $0.maxPixels = 5_000_000 }) { app in
            let f = try await UploadTests.fixture(app)
            // 3000 frames of 100×100 = 30 MP in total, over the (lowered) limit.
            let gif = TestImages.animatedGIF(frames: 3000, width: 100, height: 100)
            let response = try await app.upload(gif, event: f.event, token: f.guest)
            #expect(response.expectProblem(.unprocessableContent).contains("frames"))
            #expect(app.storedFiles().isEmpty)
        }
    }

    @Test("A GIF's frames are counted from the file, past the 4,097 libvips reports")
    func framesCountedFromTheFile() async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            // 12,000 frames of 100×100 = 120 MP, over the default 100 MP.
            let response = try await app.upload(TestImages.animatedGIF(frames: 12_000, width: 100, height: 100), event: f.event, token: f.guest)
            #expect(response.expectProblem(.unprocessableContent).contains("12000 frames"))
            #expect(app.storedFiles().isEmpty)
        }
    }

    @Test("A huge image in a tiny file is refused before it is decoded")
    func cheapFileExpensiveWork() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("flat.png").path
        #expect(try await runTool("/usr/bin/vips", ["black", path, "8000", "8000"]).status == 0)
        let flat = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(flat.count < 1_000_000)
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let response = try await app.upload(flat, event: f.event, token: f.guest)
            #expect(response.expectProblem(.unprocessableContent).contains("64 megapixels"))
            #expect(app.storedFiles().isEmpty)
        }
    }
}

/// A PNG signature and an IHDR chunk (valid CRC) claiming the given size, then an empty IDAT and IEND.
func pngHeader(width: UInt32, height: UInt32) -> Data {
    func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in typed {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc)
    }
    func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    let ihdr = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
    return Data(
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + chunk("IEND", []))
}

/// A real JPEG whose SOF marker is rewritten to claim another size.
func jpegClaiming(width: Int, height: Int) async throws -> Data {
    var bytes = [UInt8](try await TestImages.jpeg(width: 64, height: 48))
    var i = 2
    while i + 9 < bytes.count {
        let marker = bytes[i + 1]
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if (0xC0...0xC3).contains(marker) {
            bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
            bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
            return Data(bytes)
        }
        i += 2 + length
    }
    throw TestSetupError("no SOF marker")
}
