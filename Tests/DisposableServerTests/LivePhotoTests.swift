import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// LIB-3: live photos — a Google motion photo (JPEG + MP4) and an Apple Live Photo (a still, then its video).
@Suite("Live photos in the library (LIB-3)")
struct LivePhotoTests {
    /// A one-second H.264 clip made by ffmpeg (`mov` for QuickTime's container).
    static func clip(_ container: String) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("clip-\(UUID().uuidString).\(container)")
        defer { try? FileManager.default.removeItem(at: file) }
        let made = try await runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=10", "-pix_fmt", "yuv420p",
                "-c:v", "libx264", file.path,
            ])
        guard made.status == 0 else { throw TestSetupError("ffmpeg: \(made.output)") }
        return try Data(contentsOf: file)
    }

    @Test("A motion photo's MP4 is found inside its JPEG and served as its video; the original stays whole", arguments: TestEngine.allCases)
    func motionPhoto(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let still = try await TestImages.jpeg(width: 320, height: 240)
            let movie = try await Self.clip("mp4")
            let motionPhoto = still + movie  // as Pixel phones write them: the MP4 right after the JPEG
            let created = try await app.uploadToLibrary(motionPhoto, token: token, fileName: "PXL_20260101_MP.jpg")
            #expect(created.status == .created, "\(created.text)")
            let id = try #require(created.string("id"))
            let ready = try await app.waitUntilAssetProcessed(id, token: token)
            #expect(ready.string("status") == "ready")
            let video = try #require((ready["urls"] as? [String: Any])?["video"] as? String)
            let served = try await app.call(.get, video, token: token)
            #expect(served.status == .ok && served.headers[.contentType] == "video/mp4" && Data(buffer: served.body) == movie)
            let part = try await app.call(.get, video, token: token, headers: [.range: "bytes=0-11"])
            #expect(part.status == .partialContent && Data(buffer: part.body) == movie.prefix(12))
            #expect(Data(buffer: try await app.call(.get, "/api/v1/library/assets/\(id)/original", token: token).body) == motionPhoto)
            // A plain photo has none.
            let plain = try #require(try await app.uploadToLibrary(try await TestImages.jpeg(width: 321, height: 240), token: token).string("id"))
            #expect((try await app.call(.get, "/api/v1/library/assets/\(plain)", token: token)["urls"] as? [String: Any])?["video"] == nil)
            try await app.call(.get, "/api/v1/library/assets/\(plain)/video", token: token).expectProblem(.notFound)
        }
    }

    @Test(
        "An Apple Live Photo: the still, then its MOV as its video (counted in the quota, gone with it); a playlist or a text is not a video",
        arguments: TestEngine.allCases)
    func livePhoto(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let still = try await TestImages.image("heic", width: 320, height: 240)
            let movie = try await Self.clip("mov")
            let id = try #require(try await app.uploadToLibrary(still, token: token, fileName: "IMG_1000.HEIC").string("id"))
            // Hostile: an HLS playlist and an ffconcat list disguised as videos, and a photo.
            for fake in [
                Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\nfile:///etc/passwd\n".utf8), Data("ffconcat version 1.0\nfile /etc/passwd\n".utf8), still,
            ] {
                let refused = try await app.call(
                    .put, "/api/v1/library/assets/\(id)/video", token: token, headers: [.contentType: "video/mp4"], body: fake)
                refused.expectProblem(.unsupportedMediaType)
            }
            let attached = try await app.call(
                .put, "/api/v1/library/assets/\(id)/video", token: token, headers: [.contentType: "video/quicktime"], body: movie)
            #expect(attached.status == .ok, "\(attached.text)")
            let video = try #require((attached["urls"] as? [String: Any])?["video"] as? String)
            let served = try await app.call(.get, video, token: token)
            #expect(served.headers[.contentType] == "video/quicktime" && Data(buffer: served.body) == movie)
            let again = try await app.call(.put, "/api/v1/library/assets/\(id)/video", token: token, body: movie)
            again.expectProblem(.conflict)
            // Another account cannot see it.
            try await app.call(.get, video, token: try await app.userToken()).expectProblem(.notFound)
            // The quota counts both files, and gets both back when the photo is deleted for good.
            let me = try await LibraryTests.me(app, token)
            #expect(try await app.services.photos.photos.usage(userID: me)?.used == Int64(still.count + movie.count))
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(id)", token: token).status == .noContent)
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(id)", token: token).status == .noContent)
            #expect(try await app.services.photos.photos.usage(userID: me)?.used == 0)
            try await expectEventually { app.storedFiles().filter { $0.hasPrefix("library/") }.isEmpty }
        }
    }
}
