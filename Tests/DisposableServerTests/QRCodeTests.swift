import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("QR codes (QR-1)")
struct QRCodeTests {
    @Test("The PNG decodes with zbarimg to exactly the join URL, at any size", arguments: TestEngine.allCases)
    func pngDecodes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            // Several events: each code is a different pattern of modules.
            for _ in 0..<4 {
                let event = try await app.createEvent(token: token)
                let joinURL = try #require(event["joinURL"] as? String)
                // Modules per side, quiet zone included, read from the SVG's viewBox.
                let svg = try await app.call(.get, "/api/v1/events/\(event["id"]!)/qr.svg", token: token).text
                let side = try #require(svg.firstMatch(of: /viewBox="0 0 (\d+) \d+"/).flatMap { Int($0.1) })
                for size in [64, 100, 200, 512, 1000, 4096] {
                    let response = try await app.call(.get, "/api/v1/events/\(event["id"]!)/qr.png?size=\(size)", token: token)
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/png")
                    let png = Data(buffer: response.body)
                    let (width, height) = try pngSize(png)
                    #expect(width == height)
                    // Crisp: a whole number of pixels per module, as many as fit in the requested size.
                    #expect(width == side * max(2, size / side), "size \(size): \(width) px for \(side) modules")
                    let file = try writeTemporaryFile(png, suffix: ".png")
                    defer { try? FileManager.default.removeItem(at: file) }
                    let (status, output) = try await runTool("/usr/bin/zbarimg", ["--quiet", "--raw", file.path])
                    #expect(status == 0, "size \(size)")
                    #expect(output.trimmingCharacters(in: .newlines) == joinURL, "size \(size)")
                }
            }
        }
    }

    @Test("The SVG decodes too, once rasterised", arguments: [TestEngine.sqlite])
    func svgDecodes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let event = try await app.createEvent(token: token)
            let response = try await app.call(.get, "/api/v1/events/\(event["id"]!)/qr.svg?size=400", token: token)
            #expect(response.headers[.contentType] == "image/svg+xml")
            #expect(response.text.contains("shape-rendering=\"crispEdges\""))
            let svg = try writeTemporaryFile(Data(buffer: response.body), suffix: ".svg")
            let png = svg.deletingPathExtension().appendingPathExtension("png")
            defer { try? FileManager.default.removeItem(at: svg); try? FileManager.default.removeItem(at: png) }
            #expect(try await runTool("/usr/bin/rsvg-convert", ["-o", png.path, svg.path]).status == 0)
            let (status, output) = try await runTool("/usr/bin/zbarimg", ["--quiet", "--raw", png.path])
            #expect(status == 0)
            #expect(output.trimmingCharacters(in: .newlines) == event["joinURL"] as? String)
        }
    }

    @Test("Sizes out of bounds are refused naming the field")
    func badSize() async throws {
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken()
            let id = try #require(try await app.createEvent(token: token)["id"] as? String)
            for size in ["0", "63", "4097", "big", "-5"] {
                let response = try await app.call(.get, "/api/v1/events/\(id)/qr.png?size=\(size)", token: token)
                response.expectProblem(.unprocessableContent)
                #expect(response.string("field") == "size")
            }
        }
    }
}

/// Width and height from a PNG's IHDR chunk.
func pngSize(_ png: Data) throws -> (Int, Int) {
    let bytes = [UInt8](png)
    guard bytes.count > 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
        throw TestSetupError("not a PNG")
    }
    func u32(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (u32(16), u32(20))
}
