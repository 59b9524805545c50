import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SOC-4: short videos in an event — one shot each, a poster, a web-playable copy of at most 30 seconds without the
/// file's metadata, the original in the ZIP (its location taken out for others), and hostile files refused.
@Suite("Event videos (SOC-4)")
struct EventVideoTests {
    struct Party {
        let organizer: String
        let eventID: String
        let maggie: String
        let tom: String
    }

    static func party(_ app: TestApp, allowVideos: Bool = true) async throws -> Party {
        let organizer = try await app.userToken()
        let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 2, "allowVideos": allowVideos])
        #expect(event["allowVideos"] as? Bool == allowVideos)
        let code = try #require(event["code"] as? String)
        return Party(
            organizer: organizer, eventID: try #require(event["id"] as? String), maggie: try await app.guestToken(code: code, name: "Maggie"),
            tom: try await app.guestToken(code: code, name: "Tom"))
    }

    /// A phone-like QuickTime clip that says where it was shot (QuickTime keys and user data).
    static func videoWithLocation(seconds: Double = 3) async throws -> Data {
        try await TestVideos.make(
            "mov", seconds: seconds,
            options: [
                "-metadata", "location=+48.8577+002.2950/", "-metadata", "com.apple.quicktime.location.ISO6709=+48.8577+002.2950+035.000/",
                "-movflags", "use_metadata_tags",
            ])
    }

    static func shotsLeft(_ app: TestApp, _ token: String) async throws -> Int? {
        (try await app.call(.get, "/api/v1/me", token: token)["guest"] as? [String: Any])?["shotsLeft"] as? Int
    }

    static func hasLocation(_ data: Data) -> Bool { data.range(of: Data("48.8577".utf8)) != nil }

    @Test("A guest's video: one shot, a poster, a playable copy without metadata, the original in the ZIP", arguments: TestEngine.allCases)
    func video(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app)
            let original = try await Self.videoWithLocation()
            #expect(Self.hasLocation(original))
            let posted = try await app.upload(original, event: party.eventID, token: party.maggie)
            #expect(posted.status == .created, "\(posted.text)")
            #expect(posted.string("kind") == "video" && posted.string("format") == "mov")
            let id = try #require(posted.string("id"))
            let ready = try await app.waitUntilProcessed(id, token: party.maggie, timeout: .seconds(120))
            #expect(ready.string("status") == "ready", "\(ready.text)")
            #expect(ready["durationSeconds"] as? Int == 3 && ready.string("downloadName") == "Maggie1.mov")
            let urls = try #require(ready["urls"] as? [String: Any])
            #expect(urls["video"] as? String == "/api/v1/photos/\(id)/video")
            #expect(try await Self.shotsLeft(app, party.maggie) == 1, "a video is one shot")
            // Live, the others get it whole: a player needs the video's address.
            let news = try await GuestbookTests.changes(app, event: party.eventID, token: party.tom).last { $0["kind"] as? String == "photo-ready" }
            let live = try #require(news?["photo"] as? [String: Any])
            #expect((live["urls"] as? [String: Any])?["video"] as? String == "/api/v1/photos/\(id)/video" && live["durationSeconds"] as? Int == 3)

            // Tom plays it: an H.264/AAC MP4 of 3 seconds, with nothing of the file's metadata; ranges for players.
            let played = try await app.call(.get, "/api/v1/photos/\(id)/video", token: party.tom)
            #expect(played.status == .ok && played.headers[.contentType] == "video/mp4" && played.headers[.acceptRanges] == "bytes")
            let playable = Data(buffer: played.body)
            let info = try await TestVideos.probe(playable)
            #expect(info.videoCodec == "h264" && info.audioCodec == "aac" && abs((info.duration ?? 0) - 3) < 0.5, "\(info)")
            let tags = try await TestVideos.tags(playable)
            #expect(!tags.contains("location") && !tags.contains("48.8577"), "\(tags)")
            let part = try await app.call(.get, "/api/v1/photos/\(id)/video", token: party.tom, headers: [.range: "bytes=0-99"])
            #expect(part.status == .partialContent && part.body.readableBytes == 100)
            let poster = try await app.call(.get, "/api/v1/photos/\(id)/thumbnail", token: party.tom)
            #expect(poster.status == .ok && poster.headers[.contentType] == "image/jpeg")

            // The original: byte for byte to Maggie; to the others the same bytes but where it was shot.
            let hers = try await app.call(.get, "/api/v1/photos/\(id)/original", token: party.maggie)
            #expect(Data(buffer: hers.body) == original)
            let his = Data(buffer: try await app.call(.get, "/api/v1/photos/\(id)/original", token: party.tom).body)
            #expect(his.count == original.count && !Self.hasLocation(his))
            let stillPlays = try await TestVideos.probe(his)
            #expect(stillPlays.videoCodec == "h264" && abs((stillPlays.duration ?? 0) - 3) < 0.5)
            #expect(!(try await TestVideos.tags(his)).contains("48.8577"))
            let zip = try await app.call(.get, "/api/v1/events/\(party.eventID)/archive.zip", token: party.organizer)
            #expect(zip.status == .ok && zip.text.contains("Maggie1.mov") && !Self.hasLocation(Data(buffer: zip.body)))

            // Deleted: every file of it goes.
            #expect(app.storedFiles().contains { $0.hasSuffix("\(id)/video.mp4") })
            #expect(try await app.call(.delete, "/api/v1/photos/\(id)", token: party.maggie).status == .noContent)
            try await expectEventually { !app.storedFiles().contains { $0.contains(id) } }
        }
    }

    @Test("Refused: videos where the event takes none, playlists and lists dressed as MP4, too long, too wide, not a video")
    func refused() async throws {
        try await TestApp.run(.sqlite) { app in
            let photosOnly = try await Self.party(app, allowVideos: false)
            let clip = try await TestVideos.make("mp4")
            #expect(
                try await app.upload(clip, event: photosOnly.eventID, token: photosOnly.maggie).expectProblem(.unsupportedMediaType).contains(
                    "photos only"))

            let party = try await Self.party(app)
            let secret = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString).mp4")
            try clip.write(to: secret)
            defer { try? FileManager.default.removeItem(at: secret) }
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n\(secret.path)\n#EXT-X-ENDLIST\n"
            let concat = "ffconcat version 1.0\nfile '\(secret.path)'\n"
            for hostile in [playlist, concat] {
                try await app.upload(Data(hostile.utf8), event: party.eventID, token: party.maggie).expectProblem(.unsupportedMediaType)
            }
            var fake = Data([0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [0, 0, 0, 0] + Array("mp42isom".utf8))
            fake.append(Data(repeating: 7, count: 5000))
            try await app.upload(fake, event: party.eventID, token: party.maggie).expectProblem(.unsupportedMediaType)
            let tenMinutes = try await TestVideos.make("mp4", size: "64x48", seconds: 600, rate: 1)
            #expect(
                try await app.upload(tenMinutes, event: party.eventID, token: party.maggie).expectProblem(.unprocessableContent).contains("10:00"))
            let wide = try await TestVideos.make("mp4", size: "5000x16", seconds: 0.2, rate: 5)
            try await app.upload(wide, event: party.eventID, token: party.maggie).expectProblem(.unprocessableContent)
            let posts = GuestbookTests.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/photos", token: party.organizer))
            #expect(posts.isEmpty)
            #expect(app.storedFiles().isEmpty, "nothing refused is kept")
            #expect(try await Self.shotsLeft(app, party.maggie) == 2, "refusals cost no shot")
        }
    }
}
