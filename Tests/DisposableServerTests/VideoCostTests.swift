import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The second review's video findings: a library video's length is capped and its
/// transcodes are budgeted per account; a party's videos have a lane of their own; every video stream is checked
/// and the one checked is the one decoded.
@Suite("Videos: what one upload may cost")
struct VideoCostTests {
    let videos = VideoProcessor(tool: VideoTool.system()!)

    private func file(_ data: Data, _ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
        try data.write(to: url)
        return url
    }

    /// A Matroska file whose first video stream is `first` (MJPEG) and second a small H.264 clip.
    private func twoStreams(first: String) async throws -> Data {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("two-\(UUID().uuidString).mkv")
        defer { try? FileManager.default.removeItem(at: output) }
        let made = try await runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=black:s=\(first):d=0.2:r=5", "-f", "lavfi", "-i",
                "testsrc=s=320x240:d=1:r=10", "-map", "0:v", "-map", "1:v", "-c:v:0", "mjpeg", "-c:v:1", "libx264", "-preset", "ultrafast",
                "-pix_fmt:v:1", "yuv420p", output.path,
            ])
        guard made.status == 0 else { throw TestSetupError("ffmpeg: \(made.output)") }
        return try Data(contentsOf: output)
    }

    @Test("An 8000×8000 MJPEG stream before a small H.264 one is refused; with a small one, the H.264 stream checked is the one made playable")
    func everyStreamChecked() async throws {
        let huge = try file(try await twoStreams(first: "8000x8000"), "huge.mkv")
        defer { try? FileManager.default.removeItem(at: huge) }
        do {
            _ = try await videos.inspect(huge.path, limits: VideoLimits())
            Issue.record("a file with an 8000×8000 stream was accepted")
        } catch let problem as Problem {
            #expect(problem.status == .unprocessableContent && problem.detail.contains("8000×8000"), "\(problem.detail)")
        }
        let small = try file(try await twoStreams(first: "64x48"), "small.mkv")
        defer { try? FileManager.default.removeItem(at: small) }
        let info = try await videos.inspect(small.path, limits: VideoLimits())
        #expect(info.videoCodec == "h264" && info.width == 320 && info.streamIndex == 1)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let made = try await videos.render(small.path, info: info, transcode: true, maxSeconds: 30, into: scratch, lane: .event)
        let probed = try await TestVideos.probe(try Data(contentsOf: try #require(made.playable)))
        #expect(probed.width == 320 && probed.height == 240, "the copy is made from the stream that was checked")
    }

    @Test("A party's transcode does not wait behind a long library transcode")
    func lanes() async throws {
        let tool = try #require(VideoTool.system())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func encode(_ seconds: Int, _ size: String, _ name: String) -> [String] {
            [
                "-f", "lavfi", "-i", "testsrc2=s=\(size):d=\(seconds):r=30", "-c:v", "libx264", "-preset", "medium", "-threads", "1",
                directory.appendingPathComponent(name).path,
            ]
        }
        let library = Task {
            try await tool.ffmpeg(encode(12, "320x240", "long.mp4"), timeout: 600, lane: .library)
            return ContinuousClock.now
        }
        while !tool.libraryLaneBusy { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        try await tool.ffmpeg(encode(1, "160x120", "party.mp4"), timeout: 60, lane: .event)
        let partyDone = ContinuousClock.now
        #expect(tool.libraryLaneBusy, "the party's video was done while the library's still ran")
        let libraryDone = try await library.value
        #expect(partyDone < libraryDone)
    }

    @Test(
        "A library video longer than the cap is refused; past the day's transcode budget, one waits, processing, until the budget allows",
        arguments: TestEngine.allCases)
    func libraryBudget(engine: TestEngine) async throws {
        try await TestApp.run(
            engine,
            configure: {
                $0.maxLibraryVideoSeconds = 5
                $0.transcodeSecondsPerDay = 5
            }
        ) { app in
            let token = try await app.userToken()
            let long = try await TestVideos.make("webm", seconds: 8)
            let refused = try await app.uploadToLibrary(long, token: token, fileName: "long.webm", contentType: "video/webm")
            #expect(refused.expectProblem(.unprocessableContent).contains("at most 5 seconds"))

            var ids: [String] = []
            for index in 0..<2 {
                let clip = try await TestVideos.make("webm", seconds: 3, options: ["-metadata", "title=clip \(index)"])
                let created = try await app.uploadToLibrary(clip, token: token, fileName: "clip\(index).webm", contentType: "video/webm")
                #expect(created.status == .created, "\(created.text)")
                ids.append(try #require(created.string("id")))
            }
            // 3 s transcoded of a 5 s budget: one is made; the other (3 s more) waits — also once the few seconds that a
            // busy library lane asks for have passed.
            let states = try await withThrowingTaskGroup(of: (String, String?).self) { group in
                for id in ids {
                    group.addTask { (id, try? await app.waitUntilAssetProcessed(id, token: token, timeout: .seconds(45)).string("status")) }
                }
                return try await group.reduce(into: [String: String?]()) { $0[$1.0] = $1.1 }
            }
            #expect(states.values.filter { $0 == "ready" }.count == 1, "\(states)")
            let waiting = try #require(states.first { $0.value == nil }?.key, "one waits: \(states)")
            app.clock.advance(by: 60)
            try await Task.sleep(for: .seconds(4))
            #expect(try await app.call(.get, "/api/v1/library/assets/\(waiting)", token: token).string("status") == "processing")
            // A day later the budget has room again.
            app.clock.advance(by: 24 * 3600 + 60)
            #expect(try await app.waitUntilAssetProcessed(waiting, token: token, timeout: .seconds(60)).string("status") == "ready")
        }
    }
}
