import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Galleries and downloads (GAL-1..3, DL-1, DL-2, ORG-2, ORG-3)")
struct GalleryTests {
    /// Uploads `count` photos as `token` and waits until they are ready; returns their ids, oldest first.
    static func shoot(_ app: TestApp, _ count: Int, event: String, token: String, exif: [String] = []) async throws -> [String] {
        var ids: [String] = []
        for _ in 0..<count {
            app.clock.advance(by: 1)
            let response = try await app.upload(try await TestImages.jpeg(width: 120, height: 90, exif: exif), event: event, token: token)
            ids.append(try #require(response.string("id"), "\(response.text)"))
        }
        for id in ids { _ = try await app.waitUntilProcessed(id, token: token) }
        return ids
    }

    @Test("Cursor pages are newest first and stable while new photos arrive", arguments: TestEngine.allCases)
    func pagination(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let ids = try await Self.shoot(app, 7, event: f.event, token: f.guest)
            let first = try await app.call(.get, "/api/v1/events/\(f.event)/photos?limit=3", token: f.organizer)
            let page1 = (first["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(page1 == Array(ids.reversed().prefix(3)))
            let item = try #require((first["items"] as? [[String: Any]])?.first)
            #expect((item["shooter"] as? [String: Any])?["name"] as? String == "Maggie")
            #expect(
                ((item["urls"] as? [String: Any])?["thumbnail"] as? String)?.hasPrefix("/api/v1/media/\(f.event)/\(page1[0])/thumbnail.jpg?") == true)

            // New photos arrive between pages: the next pages neither repeat nor skip anything.
            _ = try await Self.shoot(app, 2, event: f.event, token: f.organizer)
            var seen = page1
            var cursor = first.string("nextCursor")
            while let next = cursor {
                let page = try await app.call(.get, "/api/v1/events/\(f.event)/photos?limit=3&cursor=\(next)", token: f.organizer)
                seen += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                cursor = page.string("nextCursor")
            }
            #expect(seen == ids.reversed())
            try await app.call(.get, "/api/v1/events/\(f.event)/photos?cursor=garbage", token: f.organizer).expectProblem(.unprocessableContent)

            // By capture time: an old photo (EXIF 2020) comes after every photo taken today.
            let old = try await Self.shoot(app, 1, event: f.event, token: f.guest, exif: ["-DateTimeOriginal=2020:01:01 10:00:00"])
            let byTaken = try await app.call(.get, "/api/v1/events/\(f.event)/photos?order=taken&limit=100", token: f.organizer)
            #expect((byTaken["items"] as? [[String: Any]])?.last?["id"] as? String == old[0])
            let byUpload = try await app.call(.get, "/api/v1/events/\(f.event)/photos?limit=100", token: f.organizer)
            #expect((byUpload["items"] as? [[String: Any]])?.first?["id"] as? String == old[0])
            try await app.call(.get, "/api/v1/events/\(f.event)/photos?limit=500", token: f.organizer).expectProblem(.unprocessableContent)
        }
    }

    @Test("A page read again shows every change since: a new photo, a deletion, new links; `mine` per viewer", arguments: TestEngine.allCases)
    func pagesFollowChanges(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let ids = try await Self.shoot(app, 4, event: f.event, token: f.guest)
            func page(_ query: String = "", token: String) async throws -> APIResponse {
                try await app.call(.get, "/api/v1/events/\(f.event)/photos?limit=2" + query, token: token)
            }
            func items(_ page: APIResponse) -> [[String: Any]] { page["items"] as? [[String: Any]] ?? [] }
            func listed(_ page: APIResponse) -> [String] { items(page).compactMap { $0["id"] as? String } }

            let first = try await page(token: f.organizer)
            #expect(listed(first) == [ids[3], ids[2]])
            #expect(try await page(token: f.organizer).text == first.text, "nothing changed: the very same page")
            let deep = "&cursor=\(try #require(first.string("nextCursor")))"
            #expect(listed(try await page(deep, token: f.organizer)) == [ids[1], ids[0]])

            // The same pages as the shooter sees them: hers, where the organizer's say not.
            #expect(items(first).map { $0["mine"] as? Bool } == [false, false])
            #expect(items(try await page(token: f.guest)).map { $0["mine"] as? Bool } == [true, true])

            let new = try await Self.shoot(app, 1, event: f.event, token: f.organizer)
            let afterNew = try await page(token: f.organizer)
            #expect(listed(afterNew) == [new[0], ids[3]])
            #expect(items(afterNew).map { $0["mine"] as? Bool } == [true, false])
            #expect(try await app.call(.delete, "/api/v1/photos/\(ids[0])", token: f.guest).status == .noContent)
            #expect(listed(try await page(deep, token: f.organizer)) == [ids[1]])

            // Signed links last 12-24 hours: a page read a day later hands out fresh ones that work.
            app.clock.advance(by: 24 * 3600)
            let later = try await page(token: f.organizer)
            #expect(listed(later) == listed(afterNew))
            let thumbnail = { (page: APIResponse) in ((items(page).first?["urls"] as? [String: Any])?["thumbnail"] as? String) ?? "" }
            #expect(thumbnail(later) != thumbnail(afterNew))
            #expect(try await app.call(.get, thumbnail(later)).status == .ok)
        }
    }

    @Test("Reveal later: guests see only a count until the reveal; their own shots always", arguments: TestEngine.allCases)
    func revealLater(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app, ["reveal": ["mode": "at-end"], "durationHours": 2])
            let ana = try await app.guestToken(
                code: try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code")), name: "Ana")
            let maggies = try await Self.shoot(app, 2, event: f.event, token: f.guest)
            _ = try await Self.shoot(app, 1, event: f.event, token: ana)

            let closed = try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest)
            #expect((closed["items"] as? [Any])?.isEmpty == true)
            #expect(closed["developingCount"] as? Int == 3)
            #expect(closed["revealed"] as? Bool == false)
            #expect(closed.string("revealAt") != nil)
            try await app.call(.get, "/api/v1/photos/\(maggies[0])", token: ana).expectProblem(.notFound)
            let mine = try await app.call(.get, "/api/v1/events/\(f.event)/photos?mine=true", token: f.guest)
            #expect((mine["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } == maggies.reversed())

            app.clock.advance(by: 2 * 3600)  // the event ends: revealed
            let open = try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.guest)
            #expect((open["items"] as? [Any])?.count == 3)
            #expect(open["developingCount"] == nil)
            #expect(try await app.call(.get, "/api/v1/photos/\(maggies[0])", token: ana).status == .ok)
        }
    }

    @Test("Originals: type, name <Name><N>.<ext>, ETag, Range; derivatives cached for long", arguments: [TestEngine.sqlite])
    func downloads(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let jpeg = try await TestImages.jpeg()
            let id = try #require(try await app.upload(jpeg, event: f.event, token: f.guest).string("id"))
            _ = try await app.waitUntilProcessed(id, token: f.guest)
            let full = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest)
            #expect(full.headers[.contentType] == "image/jpeg")
            #expect(full.headers[.contentDisposition]?.contains("filename=\"Maggie1.jpg\"") == true)
            let etag = try #require(full.headers[.eTag])
            #expect(full.headers[.lastModified] != nil)
            #expect(try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.ifNoneMatch: etag]).status == .notModified)

            let part = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: "bytes=100-199"])
            #expect(part.status == .partialContent)
            #expect(Data(buffer: part.body) == jpeg[100..<200])
            #expect(part.headers[.contentRange] == "bytes 100-199/\(jpeg.count)")
            let tail = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: "bytes=-50"])
            #expect(Data(buffer: tail.body) == jpeg.suffix(50))
            let bad = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: "bytes=\(jpeg.count)-"])
            #expect(bad.status == .rangeNotSatisfiable && bad.headers[.contentType] == nil && bad.headers[.contentDisposition] == nil)
            // Several ranges: answered whole
            let several = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: "bytes=0-1,5-6"])
            #expect(several.status == .ok && Data(buffer: several.body) == jpeg)
            // Not a valid range: ignored, the whole file (RFC 9110 §14.2); a last position past the end is the end.
            for invalid in ["bytes=abc", "bytes=5-2", "bytes=-", "bytes=1-x", "items=0-5"] {
                let whole = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: invalid])
                #expect(whole.status == .ok && Data(buffer: whole.body) == jpeg, "\(invalid)")
            }
            let huge = try await app.call(
                .get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: "bytes=0-1180591620717411303424"])
            #expect(huge.status == .partialContent && Data(buffer: huge.body) == jpeg, "\(huge.status)")
            #expect(huge.headers[.contentRange] == "bytes 0-\(jpeg.count - 1)/\(jpeg.count)")
            let pastEnd = try await app.call(
                .get, "/api/v1/photos/\(id)/original", token: f.guest, headers: [.range: "bytes=1180591620717411303424-"])
            #expect(pastEnd.status == .rangeNotSatisfiable)

            let thumbnail = try await app.call(.get, "/api/v1/photos/\(id)/thumbnail", token: f.guest)
            #expect(thumbnail.headers[.cacheControl]?.contains("max-age=31536000") == true)

            try await app.call(.patch, "/api/v1/events/\(f.event)", json: ["allowGuestDownloads": false], token: f.organizer)
            let other = try await app.guestToken(
                code: try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code")), name: "Ana")
            try await app.call(.get, "/api/v1/photos/\(id)/original", token: other).expectProblem(.forbidden)
            #expect(try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest).status == .ok, "the shooter keeps theirs")
        }
    }

    @Test("The event ZIP streams every photo: unzip -t passes and each entry's SHA-256 matches", arguments: TestEngine.allCases)
    func archive(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let ana = try await app.guestToken(
                code: try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code")), name: "Ana")
            var originals: [String: Data] = [:]
            for (token, count) in [(f.guest, 3), (ana, 2), (f.organizer, 1)] {
                for _ in 0..<count {
                    let data = try await TestImages.jpeg(width: 200, height: 150, exif: ["-DateTimeOriginal=2026:06:20 18:30:00"])
                    let id = try #require(try await app.upload(data, event: f.event, token: token).string("id"))
                    _ = try await app.waitUntilProcessed(id, token: token)
                    originals[id] = data
                }
            }
            let response = try await app.call(.get, "/api/v1/events/\(f.event)/archive.zip", token: f.organizer)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/zip")
            #expect(Int(response.headers[.contentLength] ?? "") == response.body.readableBytes, "the length is known up front")
            let zip = try writeTemporaryFile(Data(buffer: response.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: zip) }
            #expect(try await runTool("/usr/bin/unzip", ["-tq", zip.path]).status == 0)
            let listing = try await runTool("/usr/bin/unzip", ["-Z1", zip.path]).output.split(separator: "\n").map(String.init)
            #expect(Set(listing) == ["Maggie1.jpg", "Maggie2.jpg", "Maggie3.jpg", "Ana1.jpg", "Ana2.jpg", "Olivia1.jpg"])
            var expected: Set<String> = [], extracted: Set<String> = []
            for data in originals.values { expected.insert(try await data.sha256Hex) }
            for name in listing { extracted.insert(try await extract(zip, name).sha256Hex) }
            #expect(extracted == expected)
            // The capture time is the entry date.
            #expect(try await runTool("/usr/bin/unzip", ["-Z", "-T", zip.path]).output.contains("20260620.1830"))

            // A selection.
            let two = Array(originals.keys.prefix(2))
            let selection = try await app.call(.get, "/api/v1/events/\(f.event)/archive.zip?ids=\(two.joined(separator: ","))", token: f.organizer)
            let selected = try writeTemporaryFile(Data(buffer: selection.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: selected) }
            #expect(try await runTool("/usr/bin/unzip", ["-Z1", selected.path]).output.split(separator: "\n").count == 2)
        }
    }

    @Test("Deleting: a guest their own, the organizer any; files leave storage at once", arguments: TestEngine.allCases)
    func deletion(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let ana = try await app.guestToken(
                code: try #require(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).string("code")), name: "Ana")
            let maggies = try await Self.shoot(app, 2, event: f.event, token: f.guest)
            let anas = try await Self.shoot(app, 1, event: f.event, token: ana)
            #expect(app.storedFiles().count == 9)

            try await app.call(.delete, "/api/v1/photos/\(maggies[0])", token: ana).expectProblem(.forbidden)
            #expect(try await app.call(.delete, "/api/v1/photos/\(maggies[0])", token: f.guest).status == .noContent)
            #expect(!app.storedFiles().contains { $0.contains(maggies[0]) })
            try await app.call(.get, "/api/v1/photos/\(maggies[0])", token: f.guest).expectProblem(.notFound)

            #expect(try await app.call(.delete, "/api/v1/photos/\(anas[0])", token: f.organizer).status == .noContent)
            #expect(app.storedFiles().count == 3)

            let stats = try await app.call(.get, "/api/v1/events/\(f.event)/stats", token: f.organizer)
            #expect(stats["photos"] as? Int == 1)
            #expect(stats["guests"] as? Int == 2)
            #expect((stats["bytesStored"] as? Int ?? 0) > 0)
            #expect((stats["photosPerGuest"] as? [[String: Any]])?.first?["name"] as? String == "Maggie")

            #expect(try await app.call(.delete, "/api/v1/events/\(f.event)", token: f.organizer).status == .noContent)
            #expect(app.storedFiles().isEmpty, "deleting an event deletes all its files")
        }
    }
}

/// One entry of a ZIP, extracted with unzip.
func extract(_ zip: URL, _ name: String) async throws -> Data {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unzip-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try await runTool("/usr/bin/unzip", ["-q", zip.path, name, "-d", directory.path])
    return try Data(contentsOf: directory.appendingPathComponent(name))
}
