import DisposableAPI
import Foundation
import HTTPTypes
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// CAP-2: monthly capsules through HTTP — released at midnight where their owner lives, once, with a notice; chosen
/// without copies; edited, shared as a collage, the owner's alone; and the year's moments recap notice (CAP-3).
@Suite("Monthly capsules (CAP-2)")
struct CapsuleTests {
    /// An instant written as RFC 3339.
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// Uploads `file` into the library, taken at `takenAt` (the photo's own clock), and waits until it is ready.
    static func add(_ app: TestApp, _ file: URL, takenAt: String, token: String) async throws -> String {
        let uploaded = try await app.uploadToLibrary(try Data(contentsOf: file), token: token, takenAt: takenAt)
        let id = try #require(uploaded.string("id"), "\(uploaded.text)")
        #expect(try await app.waitUntilAssetProcessed(id, token: token).string("status") == "ready")
        return id
    }

    /// A sound file: a tone `seconds` long, as ffmpeg writes `format` (mp3, ogg, wav…).
    static func tone(_ format: String, seconds: Int) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tone-\(UUID().uuidString).\(format)")
        defer { try? FileManager.default.removeItem(at: file) }
        let made = try await runTool(
            "/usr/bin/ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-metadata", "title=Secret", file.path])
        guard made.status == 0 else { throw TestSetupError("ffmpeg: \(made.output)") }
        return try Data(contentsOf: file)
    }

    /// Sends `data` as the capsule's song clip.
    static func putClip(_ app: TestApp, _ month: String, _ data: Data, token: String, type: String = "audio/mpeg") async throws -> APIResponse {
        try await app.call(.put, "/api/v1/library/capsules/\(month)/clip", token: token, headers: [.contentType: type], body: data)
    }

    static func photoIDs(_ response: APIResponse) -> [String] {
        ((response["photos"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    static func notices(_ app: TestApp, _ token: String, kind: String) async throws -> [[String: Any]] {
        GuestbookTests.items(try await NotificationTests.page(app, token)).filter { $0["kind"] as? String == kind }
    }

    @Test(
        "November's capsule comes out at midnight on 1 December where its owner lives, once, with a notice; one of each copy, the sharp one",
        arguments: TestEngine.allCases)
    func release(engine: TestEngine) async throws {
        let folder = try SelectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestApp.run(engine) { app in
            // setup: Kiri lives in Auckland (UTC+13 in summer), Ana keeps UTC; it is 23:00 on 30 November in Auckland
            app.clock.set(Self.at("2026-11-30T10:00:00Z"))
            let kiri = try await app.userToken()
            let ana = try await app.userToken()
            #expect(try await app.call(.patch, "/api/v1/me", json: ["timeZone": "Pacific/Auckland"], token: kiri).status == .ok)
            let cake = try await SelectionTests.scene(31, in: folder)
            let dance = try await SelectionTests.scene(32, in: folder)
            var ids: [String: String] = [:]
            for (name, file, takenAt) in [
                ("cake", cake, "2026-11-03T12:00:00Z"),
                ("cake-copy", try await SelectionTests.variant(cake, "copy", "copy", quality: 40), "2026-11-03T15:00:00Z"),
                ("dance-blurred", try await SelectionTests.variant(dance, "blurred", "gaussblur", ["2.5"]), "2026-11-14T21:00:00Z"),
                ("dance", dance, "2026-11-14T22:00:00Z"),
                ("toast", try await SelectionTests.scene(33, in: folder), "2026-11-30T23:30:00Z"),  // late on the 30th, on the photo's clock
                ("trashed", try await SelectionTests.scene(34, in: folder), "2026-11-20T12:00:00Z"),
                ("october", try await SelectionTests.scene(35, in: folder), "2026-10-31T12:00:00Z"),
            ] as [(String, URL, String)] {
                ids[name] = try await Self.add(app, file, takenAt: takenAt, token: kiri)
            }
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(ids["trashed"]!)", token: kiri).status == .noContent)
            _ = try await Self.add(app, try await SelectionTests.scene(36, in: folder), takenAt: "2026-11-10T09:00:00Z", token: ana)
            // a capsule waits for an import to settle: none while the month's photos are still coming in
            try await app.services.capsules.releaseDue()
            #expect(((try await app.call(.get, "/api/v1/library/capsules", token: kiri))["items"] as? [Any])?.isEmpty == true)
            app.clock.advance(by: CapsuleService.settling)

            // MUT + validate: before midnight in Auckland, last month's capsule (October, its one photo) comes at once for a
            // new library, November's not yet; the countdown ends at that midnight
            try await app.services.capsules.releaseDue()
            let before = try await app.call(.get, "/api/v1/library/capsules", token: kiri)
            #expect(((before["items"] as? [[String: Any]]) ?? []).map { $0["month"] as? String } == ["2026-10"], "\(before.text)")
            #expect(before.string("nextCapsuleAt") == "2026-11-30T11:00:00.000Z")
            #expect(Self.photoIDs(try await app.call(.get, "/api/v1/library/capsules/2026-10", token: kiri)) == [ids["october"]!])
            try await app.call(.get, "/api/v1/library/capsules/2026-11", token: kiri).expectProblem(.notFound)

            // 00:30 on 1 December in Auckland, still 30 November in UTC: Kiri's capsule, once, even asked twice at once
            app.clock.set(Self.at("2026-11-30T11:30:00Z"))
            async let first: Void = app.services.capsules.releaseDue()
            async let second: Void = app.services.capsules.releaseDue()
            _ = try await (first, second)
            try await app.services.capsules.releaseDue()
            let list = try await app.call(.get, "/api/v1/library/capsules", token: kiri)
            let items = (list["items"] as? [[String: Any]]) ?? []
            #expect(items.map { $0["month"] as? String } == ["2026-11", "2026-10"], "newest first: \(list.text)")
            #expect(list.string("nextCapsuleAt") == "2026-12-31T11:00:00.000Z" && list.string("timeZone") == "Pacific/Auckland")
            let capsule = try await app.call(.get, "/api/v1/library/capsules/2026-11", token: kiri)
            let chosen = Self.photoIDs(capsule)
            #expect(chosen.count == 3 && chosen.contains(ids["dance"]!) && chosen.last == ids["toast"]!, "\(chosen) of \(ids)")
            #expect(Set(chosen).intersection([ids["cake"]!, ids["cake-copy"]!]).count == 1, "one of the two copies")
            #expect(!chosen.contains(ids["trashed"]!) && !chosen.contains(ids["october"]!))
            #expect(capsule["quote"] == nil && capsule["song"] == nil && capsule.string("releasedAt") == "2026-11-30T11:30:00.000Z")
            let told = try await Self.notices(app, kiri, kind: "capsule")
            #expect(told.map { $0["period"] as? String } == ["2026-11", "2026-10"] && told.first?["eventId"] == nil, "\(told)")
            #expect(((try await app.call(.get, "/api/v1/library/capsules", token: ana))["items"] as? [Any])?.isEmpty == true, "UTC: not yet")

            // midnight in UTC: Ana's
            app.clock.set(Self.at("2026-12-01T00:30:00Z"))
            try await app.services.capsules.releaseDue()
            #expect(Self.photoIDs(try await app.call(.get, "/api/v1/library/capsules/2026-11", token: ana)).count == 1)
            #expect(try await Self.notices(app, ana, kind: "capsule").count == 1)
            #expect(try await Self.notices(app, kiri, kind: "capsule").count == 2, "Kiri is not told again")

            // Cleo's library has only old photos: no capsule; she imports November's a day later: it comes then
            let cleo = try await app.userToken()
            _ = try await Self.add(app, try await SelectionTests.scene(37, in: folder), takenAt: "2023-05-14T12:00:00Z", token: cleo)
            try await app.services.capsules.releaseDue()
            #expect(((try await app.call(.get, "/api/v1/library/capsules", token: cleo))["items"] as? [Any])?.isEmpty == true)
            app.clock.advance(by: 86_400)
            let imported = try await Self.add(app, try await SelectionTests.scene(38, in: folder), takenAt: "2026-11-21T12:00:00Z", token: cleo)
            app.clock.advance(by: CapsuleService.settling)
            try await app.services.capsules.releaseDue()
            #expect(Self.photoIDs(try await app.call(.get, "/api/v1/library/capsules/2026-11", token: cleo)) == [imported])

            // the collage: a real JPEG, 1080 px wide, made once (ETag); the pages, in English and French
            let collageURL = try #require(capsule.string("collageURL"))
            try await RecapTests.expectThreeSquareCollage(app, collageURL, token: kiri, again: kiri)
            let history = try await app.page(.get, "/capsules", cookie: kiri, headers: [.acceptLanguage: "fr"]).text
            #expect(history.contains("Novembre 2026") && history.contains("href=\"/capsules/2026-11\"") && history.contains("3 photos"))
            #expect(history.contains("Octobre 2026") && history.contains("1 photo<"))
            let page = try await app.page(.get, "/capsules/2026-11", cookie: kiri).text
            #expect(page.contains("<h1 id=\"capsule-title\">November 2026</h1>") && page.contains("Grey outside, warm in here."))
            for id in chosen { #expect(page.contains("data-id=\"\(id)\"")) }

            // hostile: someone else's month is not theirs to see; months that are not months
            let bob = try await app.userToken()
            try await app.call(.get, "/api/v1/library/capsules/2026-11", token: bob).expectProblem(.notFound)
            try await app.call(.get, collageURL, token: bob).expectProblem(.notFound)
            try await app.call(.get, "/api/v1/library/capsules/2026-11/candidates", token: bob).expectProblem(.notFound)
            #expect(try await app.page(.get, "/capsules/2026-11", cookie: bob).status == .notFound)
            for month in ["2026-13", "26-11", "2026-1", "2026-11x", "..%2F..", "2026-00"] {
                try await app.call(.get, "/api/v1/library/capsules/\(month)", token: kiri).expectProblem(.notFound)
            }
            try await app.call(.get, "/api/v1/library/capsules").expectProblem(.unauthorized)
        }
    }

    @Test(
        "Edits: how many, which photos, the words and the song; refused input changes nothing; gone with the account",
        arguments: TestEngine.allCases)
    func edits(engine: TestEngine) async throws {
        let folder = try SelectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestApp.run(engine) { app in
            // setup: six different November photos and one of October, November's capsule out
            app.clock.set(Self.at("2026-11-29T12:00:00Z"))
            let olivia = try await app.userToken()
            var november: [String] = []
            for day in 1...6 {
                november.append(
                    try await Self.add(
                        app, try await SelectionTests.scene(40 + day, in: folder), takenAt: "2026-11-0\(day)T12:00:00Z", token: olivia))
            }
            let october = try await Self.add(app, try await SelectionTests.scene(49, in: folder), takenAt: "2026-10-09T12:00:00Z", token: olivia)
            app.clock.set(Self.at("2026-12-01T08:00:00Z"))
            _ = try await app.call(.get, "/api/v1/me", token: olivia)  // sessions slide with use
            try await app.services.capsules.releaseDue()
            let path = "/api/v1/library/capsules/2026-11"
            #expect(Self.photoIDs(try await app.call(.get, path, token: olivia)) == november, "all six, in time order")

            // MUT + validate: fewer, then more (those kept stay), then exactly these two
            let three = Self.photoIDs(try await app.call(.patch, path, json: ["count": 3], token: olivia))
            #expect(three.count == 3 && Set(three).isSubset(of: november))
            let five = Self.photoIDs(try await app.call(.patch, path, json: ["count": 5], token: olivia))
            #expect(five.count == 5 && Set(three).isSubset(of: Set(five)) && five == november.filter(five.contains), "\(five)")
            let candidates = ((try await app.call(.get, "\(path)/candidates", token: olivia))["items"] as? [[String: Any]]) ?? []
            #expect(candidates.compactMap { $0["id"] as? String } == november, "the month's photos, not October's")
            let two = try await app.call(.patch, path, json: ["photos": [november[4], november[1]]], token: olivia)
            #expect(Self.photoIDs(two) == [november[1], november[4]], "\(two.text)")

            // the words and the song; blank gives the month's line back
            let words = try await app.call(
                .patch, path, json: ["quote": "  Our first snow  ", "songTitle": "Snow <b>", "songArtist": "The Band"], token: olivia)
            #expect(words.string("quote") == "Our first snow" && (words["song"] as? [String: Any])?["title"] as? String == "Snow <b>")
            let page = try await app.page(.get, "/capsules/2026-11", cookie: olivia).text
            #expect(page.contains("Our first snow") && page.contains("Snow &lt;b&gt;") && !page.contains("Snow <b>"))
            let blank = try await app.call(.patch, path, json: ["quote": "", "songTitle": ""], token: olivia)
            #expect(blank["quote"] == nil && blank["song"] == nil, "\(blank.text)")

            // hostile input: refused with a sentence, and nothing changes
            let other = try await app.userToken()
            let theirs = try await Self.add(app, try await SelectionTests.scene(48, in: folder), takenAt: "2026-11-02T12:00:00Z", token: other)
            for body: [String: Any] in [
                ["photos": [october]], ["photos": [theirs]], ["photos": [november[0], november[0]]], ["photos": [String]()],
                ["photos": Array(repeating: november[0], count: 25)], ["count": 0], ["count": 25], ["quote": String(repeating: "a", count: 281)],
                ["quote": "a\u{202E}b"], ["quote": "two\nlines"], ["songArtist": "Nobody"], ["songTitle": String(repeating: "s", count: 101)],
            ] {
                try await app.call(.patch, path, json: body, token: olivia).expectProblem(.unprocessableContent)
            }
            for body: [String: Any] in [["count": "three"], ["mood": "happy"], ["photos": "all"]] {
                try await app.call(.patch, path, json: body, token: olivia).expectProblem(.badRequest)
            }
            try await app.call(.patch, path, json: ["quote": "Mine now"], token: other).expectProblem(.notFound)
            #expect(Self.photoIDs(try await app.call(.get, path, token: olivia)) == [november[1], november[4]], "unchanged")

            // the song's clip: a 40 s MP3 becomes 30 s of AAC without its tags; not sound files are refused; removed
            let clipped = try await Self.putClip(app, "2026-11", try await Self.tone("mp3", seconds: 40), token: olivia)
            let clipURL = try #require(clipped.string("clipURL"), "\(clipped.text)")
            let clip = try await app.call(.get, clipURL, token: olivia)
            #expect(clip.status == .ok && clip.headers[.contentType] == "audio/mp4")
            let clipFile = try writeTemporaryFile(Data(buffer: clip.body), suffix: ".m4a")
            defer { try? FileManager.default.removeItem(at: clipFile) }
            let probed = try await runTool(
                "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration:format_tags:stream=codec_name", "-of", "json", clipFile.path])
            #expect(probed.output.contains("\"aac\"") && !probed.output.contains("Secret"), "\(probed.output)")
            let seconds =
                (try? JSONSerialization.jsonObject(with: Data(probed.output.utf8)) as? [String: Any])
                .flatMap { ($0["format"] as? [String: Any])?["duration"] as? String }.flatMap(Double.init) ?? 0
            #expect(seconds > 29 && seconds < 30.5, "\(seconds) s")
            for (bytes, type) in [
                (try await TestImages.jpeg(width: 64, height: 48), "image/jpeg"),
                (Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\nfile:///etc/passwd\n".utf8), "audio/mpeg"),
                (Data("not a sound".utf8), "audio/mpeg"),
            ] {
                try await Self.putClip(app, "2026-11", bytes, token: olivia, type: type).expectProblem(.unsupportedMediaType)
            }
            try await Self.putClip(app, "2026-11", try await Self.tone("wav", seconds: 1), token: other).expectProblem(.notFound)
            #expect(try await app.call(.get, clipURL, token: olivia).status == .ok, "a refused file leaves the clip as it was")
            #expect(try await app.call(.delete, "/api/v1/library/capsules/2026-11/clip", token: olivia).status == .noContent)
            try await app.call(.get, clipURL, token: olivia).expectProblem(.notFound)
            #expect(try await Self.putClip(app, "2026-11", try await Self.tone("ogg", seconds: 3), token: olivia).status == .ok)

            // a photo moved to the trash leaves the capsule; the collage has what is left
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(november[1])", token: olivia).status == .noContent)
            #expect(Self.photoIDs(try await app.call(.get, path, token: olivia)) == [november[4]])
            #expect(try await app.call(.get, "\(path)/collage.jpg", token: olivia).status == .ok)

            // gone with the account: rows, files, notices
            let userID = try await LibraryTests.me(app, olivia)
            #expect(app.storedFiles().contains { $0.hasPrefix("library/\(userID)/capsules/2026-11/collage-") })
            #expect(app.storedFiles().contains("library/\(userID)/capsules/2026-11/clip.m4a"))
            let email = try #require(((try await app.call(.get, "/api/v1/me", token: olivia))["user"] as? [String: Any])?["email"] as? String)
            #expect(try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": email], token: olivia).status == .noContent)
            let left = try await app.services.database.sql { db in
                try await db.raw(
                    """
                    SELECT (SELECT COUNT(*) FROM capsules WHERE user_id = \(bind: userID)) AS capsules,
                           (SELECT COUNT(*) FROM notifications WHERE recipient_id = \(bind: userID)) AS notices
                    """
                ).first().map { [try $0.decode(column: "capsules", as: Int.self), try $0.decode(column: "notices", as: Int.self)] }
            }
            #expect(left == [0, 0])
            #expect(!app.storedFiles().contains { $0.hasPrefix("library/\(userID)/") })
        }
    }

    @Test("The year's moments recap is announced once, after midnight on 31 December where the owner lives", arguments: TestEngine.allCases)
    func momentsRecapNotice(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: Kiri in Auckland notes a moment in 2026; Ana, in UTC, only in 2027 (her first)
            app.clock.set(Self.at("2026-12-31T09:00:00Z"))
            let kiri = try await app.userToken()
            let ana = try await app.userToken()
            #expect(try await app.call(.patch, "/api/v1/me", json: ["timeZone": "Pacific/Auckland"], token: kiri).status == .ok)
            #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Last swim"), token: kiri).status == .created)
            let announce = { try await app.services.moments.announceYearsDue(bell: app.services.notifications.bell) }

            // MUT + validate: 23:30 in Auckland — nothing; 00:30 — once, however often asked
            app.clock.set(Self.at("2026-12-31T10:30:00Z"))
            try await announce()
            #expect(try await Self.notices(app, kiri, kind: "moments-recap").isEmpty)
            app.clock.set(Self.at("2026-12-31T11:30:00Z"))
            try await announce()
            try await announce()
            let told = try await Self.notices(app, kiri, kind: "moments-recap")
            #expect(told.count == 1 && told.first?["period"] as? String == "2026", "\(told)")
            app.clock.set(Self.at("2027-01-01T00:30:00Z"))
            #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "New year"), token: ana).status == .created)
            try await announce()
            #expect(try await Self.notices(app, ana, kind: "moments-recap").isEmpty, "no moments in 2026: nothing to recap")
            #expect(try await Self.notices(app, kiri, kind: "moments-recap").count == 1)
        }
    }
}
