import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Videos made by ffmpeg for the tests: `lavfi` sources, so nothing is read from disk.
enum TestVideos {
    /// A clip: `size`, `seconds` long, in `container` (`mp4`, `mov`, `webm`), with extra ffmpeg output options.
    static func make(_ container: String, size: String = "320x240", seconds: Double = 2, rate: Int = 15, options: [String] = []) async throws
        -> Data
    {
        // MP4 and QuickTime come out of ffmpeg the same byte for byte each time (WebM carries a random id): made once.
        guard container != "webm" else { return try await encode(container, size: size, seconds: seconds, rate: rate, options: options) }
        return try await made.value(for: [container, size, "\(seconds)", "\(rate)"] + options) {
            try await encode(container, size: size, seconds: seconds, rate: rate, options: options)
        }
    }

    private static let made = Made()

    /// Clips already made, by how they were asked for.
    private actor Made {
        private var clips: [[String]: Task<Data, any Error>] = [:]

        func value(for key: [String], _ make: @escaping @Sendable () async throws -> Data) async throws -> Data {
            if let clip = clips[key] { return try await clip.value }
            let clip = Task { try await make() }
            clips[key] = clip
            return try await clip.value
        }
    }

    private static func encode(_ container: String, size: String, seconds: Double, rate: Int, options: [String]) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString).\(container)")
        defer { try? FileManager.default.removeItem(at: file) }
        let codecs =
            container == "webm"
            ? ["-c:v", "libvpx", "-b:v", "300k", "-c:a", "libopus"]
            : ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"]
        let made = try await runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=\(size):rate=\(rate)", "-f", "lavfi", "-i",
                "sine=duration=\(seconds)",
            ] + codecs + options + ["-shortest", file.path])
        guard made.status == 0 else { throw TestSetupError("ffmpeg: \(made.output)") }
        return try Data(contentsOf: file)
    }

    static func probe(_ data: Data) async throws -> VideoInfo {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try VideoProcessor.parse(try await #require(VideoTool.system()).probe(file.path))
    }

    /// Every tag ffprobe sees in the file's container and streams.
    static func tags(_ data: Data) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tags-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let probed = try await runTool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", file.path])
        return probed.output
    }
}

/// ffmpeg run safely on hostile input (SOC-4, LIB-1): only real video containers are read, nothing else is opened,
/// sizes and lengths are bounded, metadata (location) does not survive into what others see.
@Suite("Videos: ffmpeg on hostile input")
struct VideoSafetyTests {
    let videos = VideoProcessor(tool: VideoTool.system()!)

    func file(_ data: Data, _ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try data.write(to: url)
        return url
    }

    @Test("An HLS playlist or an ffconcat list named .mp4 is not read, and ffmpeg opens nothing it names")
    func playlistsAreRefused() async throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString).mp4")
        try await TestVideos.make("mp4").write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let hostile = [
            "hls.mp4": "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n\(secret.path)\n#EXT-X-ENDLIST\n",
            "concat.mp4": "ffconcat version 1.0\nfile '\(secret.path)'\n",
        ]
        for (name, text) in hostile {
            let path = try file(Data(text.utf8), name)
            defer { try? FileManager.default.removeItem(at: path) }
            #expect(VideoFormat(sniffing: Data(text.utf8)) == nil)
            // Past the sniffing, ffprobe's own whitelist refuses it: the file it names is never read.
            await #expect(throws: Problem.self) { try await videos.inspect(path.path, limits: VideoLimits()) }
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let info = VideoInfo(
                duration: 1, width: 320, height: 240, videoCodec: "h264", pixelFormat: "yuv420p", audioCodec: nil, container: "mov,mp4",
                rotated: false, recordedAt: nil)
            await #expect(throws: VideoTool.Failed.self) {
                try await videos.render(path.path, info: info, transcode: true, maxSeconds: 30, into: scratch, lane: .event)
            }
        }
    }

    @Test("A file with a video's first bytes and nothing of a video after them is not a video")
    func notAVideo() async throws {
        var bytes = Data([0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [0, 0, 0, 0] + Array("mp42isom".utf8))
        bytes.append(Data((0..<100_000).map { _ in UInt8.random(in: 0...255) }))
        #expect(VideoFormat(sniffing: bytes) == .mp4)
        let path = try file(bytes, "noise.mp4")
        defer { try? FileManager.default.removeItem(at: path) }
        await #expect(throws: Problem.self) { try await videos.inspect(path.path, limits: VideoLimits()) }
    }

    @Test("Huge dimensions are refused before anything decodes them; a 10-minute video is refused where 30 s is the limit")
    func bounds() async throws {
        let wide = try file(try await TestVideos.make("mp4", size: "5000x16", seconds: 0.2, rate: 5), "wide.mp4")
        defer { try? FileManager.default.removeItem(at: wide) }
        do {
            _ = try await videos.inspect(wide.path, limits: VideoLimits())
            Issue.record("a 5000-pixel-wide video was accepted")
        } catch let problem as Problem {
            #expect(problem.status == .unprocessableContent && problem.detail.contains("5000×16"))
        }
        let long = try file(try await TestVideos.make("mp4", size: "16x16", seconds: 600, rate: 1), "long.mp4")
        defer { try? FileManager.default.removeItem(at: long) }
        do {
            _ = try await videos.inspect(long.path, limits: VideoLimits(maxSeconds: 30))
            Issue.record("a 10-minute video was accepted")
        } catch let problem as Problem {
            #expect(problem.status == .unprocessableContent && problem.detail.contains("10:00") && problem.detail.contains("30 seconds"))
        }
        #expect(try await videos.inspect(long.path, limits: VideoLimits()).duration ?? 0 > 599)
    }

    @Test("The playable copy is H.264/AAC MP4, at most the length asked, upright and bounded, without the file's location")
    func playableCopy() async throws {
        let source = try await TestVideos.make(
            "mov", size: "640x480", seconds: 3,
            options: ["-metadata", "location=+48.8584+002.2945/", "-metadata", "creation_time=2022-07-01T12:00:00Z"])
        #expect(try await TestVideos.tags(source).contains("48.8584"))
        let path = try file(source, "gps.mov")
        defer { try? FileManager.default.removeItem(at: path) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let info = try await videos.inspect(path.path, limits: VideoLimits())
        #expect(info.recordedAt == Date(timeIntervalSince1970: 1_656_676_800))
        let made = try await videos.render(path.path, info: info, transcode: true, maxSeconds: 1.5, into: scratch, lane: .event)
        let copy = try Data(contentsOf: try #require(made.playable))
        let probed = try await TestVideos.probe(copy)
        #expect(probed.videoCodec == "h264" && probed.audioCodec == "aac" && probed.pixelFormat == "yuv420p" && probed.playsInBrowsers)
        #expect(abs((probed.duration ?? 0) - 1.5) < 0.2, "\(String(describing: probed.duration))")
        #expect(probed.width == 640 && probed.height == 480)
        #expect(try await !TestVideos.tags(copy).contains("48.8584"))
        #expect(try Data(contentsOf: made.poster).starts(with: [0xFF, 0xD8, 0xFF]))
    }
}

/// LIB-1: videos in a user's library — kept as sent, a poster for the timeline, a copy browsers play.
@Suite("Videos in the library (LIB-1)")
struct LibraryVideoTests {
    @Test(
        "A browser's WebM is kept byte for byte, shown by its poster, played as an H.264 MP4; an MP4 browsers play is served as it is",
        arguments: TestEngine.allCases)
    func libraryVideos(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let webm = try await TestVideos.make("webm", seconds: 2, options: ["-metadata", "creation_time=2022-07-01T12:00:00Z"])
            let created = try await app.uploadToLibrary(webm, token: token, fileName: "party.webm", contentType: "video/webm")
            #expect(created.status == .created, "\(created.text)")
            #expect(created.string("mediaType") == "video")
            let id = try #require(created.string("id"))
            let ready = try await app.waitUntilAssetProcessed(id, token: token, timeout: .seconds(90))
            #expect(ready.string("status") == "ready", "\(ready.text)")
            #expect(ready.string("format") == "webm" && ready.string("fileName") == "party.webm")
            #expect(abs((ready["durationSeconds"] as? Double ?? 0) - 2) < 0.3)
            #expect(ready["width"] as? Int == 320 && ready["height"] as? Int == 240)
            let urls = try #require(ready["urls"] as? [String: Any])
            for derivative in ["thumbnail", "preview"] {
                let image = try await app.call(.get, try #require(urls[derivative] as? String), token: token)
                #expect(image.status == .ok && image.headers[.contentType] == "image/jpeg" && Data(buffer: image.body).starts(with: [0xFF, 0xD8]))
            }
            let played = try await app.call(.get, try #require(urls["video"] as? String), token: token)
            #expect(played.status == .ok && played.headers[.contentType] == "video/mp4")
            #expect(try await TestVideos.probe(Data(buffer: played.body)).videoCodec == "h264")
            let part = try await app.call(.get, try #require(urls["video"] as? String), token: token, headers: [.range: "bytes=0-99"])
            #expect(part.status == .partialContent && part.body.readableBytes == 100)
            let original = try await app.call(.get, "/api/v1/library/assets/\(id)/original", token: token)
            #expect(Data(buffer: original.body) == webm && original.headers[.contentType] == "video/webm")

            // An MP4 browsers play: its own bytes are the video.
            let mp4 = try await TestVideos.make("mp4", seconds: 1)
            let mp4ID = try #require(try await app.uploadToLibrary(mp4, token: token, contentType: "video/mp4").string("id"))
            let mp4Ready = try await app.waitUntilAssetProcessed(mp4ID, token: token, timeout: .seconds(60))
            #expect(mp4Ready.string("fileName")?.hasPrefix("VID_") == true)
            let mp4Video = try #require((mp4Ready["urls"] as? [String: Any])?["video"] as? String)
            #expect(Data(buffer: try await app.call(.get, mp4Video, token: token).body) == mp4)
            // A video takes no live photo's motion; another account sees none of it.
            try await app.call(.put, "/api/v1/library/assets/\(mp4ID)/video", token: token, body: mp4).expectProblem(.conflict)
            try await app.call(.get, mp4Video, token: try await app.userToken()).expectProblem(.notFound)
            // The quota counts the originals only; deleting for good removes every file.
            let me = try await LibraryTests.me(app, token)
            #expect(try await app.services.photos.photos.usage(userID: me)?.used == Int64(webm.count + mp4.count))
            for asset in [id, mp4ID] {
                #expect(try await app.call(.delete, "/api/v1/library/assets/\(asset)", token: token).status == .noContent)
                #expect(try await app.call(.delete, "/api/v1/library/assets/\(asset)", token: token).status == .noContent)
            }
            try await expectEventually { app.storedFiles().filter { $0.hasPrefix("library/") }.isEmpty }
        }
    }

    @Test("A file that looks like a video and is not one, or is too wide, is refused and leaves nothing behind", arguments: TestEngine.allCases)
    func hostileVideos(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            var fake = Data([0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [0, 0, 0, 0] + Array("mp42isom".utf8))
            fake.append(Data(repeating: 7, count: 5000))
            try await app.uploadToLibrary(fake, token: token).expectProblem(.unsupportedMediaType)
            try await app.uploadToLibrary(Data("{}".utf8), token: token, contentType: "application/json").expectProblem(.unsupportedMediaType)
            try await app.uploadToLibrary(Data("#EXTM3U\n#EXTINF:1,\n/etc/passwd\n".utf8), token: token).expectProblem(.unsupportedMediaType)
            let wide = try await TestVideos.make("mp4", size: "5000x16", seconds: 0.2, rate: 5)
            try await app.uploadToLibrary(wide, token: token).expectProblem(.unprocessableContent)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: token)).isEmpty)
            #expect(app.storedFiles().filter { $0.hasPrefix("library/") }.isEmpty)
        }
    }
}
