import Crypto
import Foundation
import Testing

@testable import DisposableFeatures
@testable import DisposableServer

/// The personal library (LIB-1/2/4/6, UP-6/7; P-I-130/150/190/200/212/260/290) through HTTP, both engines, and S3.
@Suite("Personal library (LIB)")
struct LibraryTests {
    /// Where a test runs: a database, and the local folder or a bucket.
    enum Place: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres, postgresOnS3

        var testDescription: String { rawValue }
        var engine: TestEngine { self == .sqlite ? .sqlite : .postgres }

        func run(_ body: @Sendable @escaping (TestApp) async throws -> Void) async throws {
            guard self == .postgresOnS3 else { return try await TestApp.run(engine, body) }
            let bucket = try await TestS3.freshBucket(prefix: "library")
            try await TestApp.run(engine, configure: { $0.storage = .s3(bucket) }, body)
        }
    }

    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }
    static func me(_ app: TestApp, _ token: String) async throws -> String {
        try #require(((try await app.call(.get, "/api/v1/me", token: token))["user"] as? [String: Any])?["id"] as? String)
    }

    static func ids(_ response: APIResponse) -> [String] {
        (response["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test(
        "Uploads keep the original byte for byte with both derivatives; the timeline is newest capture first, by month, in pages; the same bytes again are 409 with the existing id",
        arguments: Place.allCases)
    func uploadAndTimeline(place: Place) async throws {
        try await place.run { app in
            let token = try await app.userToken()
            let may = try await TestImages.jpeg(width: 400, height: 300, exif: ["-DateTimeOriginal=2023:05:14 18:30:00"])
            let december = try await TestImages.image("png", width: 300, height: 200)
            let today = try await TestImages.jpeg(width: 320, height: 240)

            // MUT: three uploads — capture time from EXIF, from X-Taken-At, and none (the upload time)
            let first = try await app.uploadToLibrary(may, token: token, key: "phone-1", fileName: "IMG_0001.JPG")
            #expect(first.status == .created, "\(first.text)")
            #expect(first.string("status") == "processing")
            let mayID = try #require(first.string("id"))
            let decemberID = try #require(
                try await app.uploadToLibrary(december, token: token, takenAt: "2021-12-25T10:00:00Z").string("id"))
            let todayID = try #require(try await app.uploadToLibrary(today, token: token).string("id"))
            for id in [mayID, decemberID, todayID] { #expect(try await app.waitUntilAssetProcessed(id, token: token).string("status") == "ready") }

            // validate: capture times and months
            let asset = try await app.call(.get, "/api/v1/library/assets/\(mayID)", token: token)
            #expect(asset.string("takenAt") == "2023-05-14T18:30:00.000Z")
            #expect(asset.string("month") == "2023-05")
            #expect(asset.string("fileName") == "IMG_0001.JPG")
            #expect(asset.string("sha256") == Self.sha256(may))
            #expect(asset["width"] as? Int == 400 && asset["height"] as? Int == 300)
            #expect(try await app.call(.get, "/api/v1/library/assets/\(decemberID)", token: token).string("month") == "2021-12")

            // the timeline: newest capture first, in pages
            let all = try await app.call(.get, "/api/v1/library/assets", token: token)
            #expect(Self.ids(all) == [todayID, mayID, decemberID])
            let page1 = try await app.call(.get, "/api/v1/library/assets?limit=2", token: token)
            #expect(Self.ids(page1) == [todayID, mayID])
            let cursor = try #require(page1.string("nextCursor"))
            let page2 = try await app.call(.get, "/api/v1/library/assets?limit=2&cursor=\(cursor)", token: token)
            #expect(Self.ids(page2) == [decemberID] && page2["nextCursor"] == nil)

            // the bytes: the original as sent (ranges too), a preview and a thumbnail
            let original = try await app.call(.get, "/api/v1/library/assets/\(mayID)/original", token: token)
            #expect(Data(buffer: original.body) == may)
            #expect(original.headers[.contentDisposition]?.contains("IMG_0001.JPG") == true)
            let range = try await app.call(.get, "/api/v1/library/assets/\(mayID)/original", token: token, headers: [.range: "bytes=100-199"])
            #expect(range.status == .partialContent && Data(buffer: range.body) == may[100...199])
            for file in ["preview", "thumbnail"] {
                let derivative = try await app.call(.get, "/api/v1/library/assets/\(mayID)/\(file)", token: token)
                #expect(derivative.status == .ok && derivative.headers[.contentType] == "image/jpeg")
                #expect(TestImages.jpegSize(Data(buffer: derivative.body)) != nil)
            }
            #expect(Data(buffer: try await app.call(.get, "/api/v1/library/assets/\(decemberID)/original", token: token).body) == december)

            // UP-6: the same bytes again → 409 with the existing id; the same key again → the same asset
            let again = try await app.uploadToLibrary(may, token: token)
            again.expectProblem(.conflict)
            #expect(again.string("title") == "Media already exists" && again.string("existingId") == mayID)
            let retried = try await app.uploadToLibrary(may, token: token, key: "phone-1")
            #expect(retried.status == .ok && retried.string("id") == mayID)

            // UP-7: check by hash first
            let unknown = String(repeating: "0", count: 64)
            let check = try await app.call(.post, "/api/v1/library/check", json: ["sha256": [Self.sha256(may).uppercased(), unknown]], token: token)
            #expect(check["existing"] as? [String] == [Self.sha256(may)] && check["missing"] as? [String] == [unknown])

            // ADM-5: the originals count against the account's quota
            let admin = try await app.adminToken()
            let me = try await Self.me(app, token)
            let accounts = try await app.call(.get, "/api/v1/admin/users", token: admin)
            let row = try #require((accounts["items"] as? [[String: Any]])?.first { $0["id"] as? String == me })
            #expect(row["usedBytes"] as? Int == may.count + december.count + today.count)
        }
    }

    @Test(
        "Edit replaces the file (same id, next revision, new derivatives); delete moves to the trash, restore brings back, emptying and the 30-day sweep delete files and give the space back",
        arguments: Place.allCases)
    func editAndTrash(place: Place) async throws {
        try await place.run { app in
            let token = try await app.userToken()
            let admin = try await app.adminToken()
            let me = try await Self.me(app, token)
            func used() async throws -> Int? {
                let accounts = try await app.call(.get, "/api/v1/admin/users", token: admin)
                return (accounts["items"] as? [[String: Any]])?.first { $0["id"] as? String == me }?["usedBytes"] as? Int
            }
            let photo = try await TestImages.jpeg(width: 300, height: 200, exif: ["-DateTimeOriginal=2024:08:01 12:00:00"])
            let id = try #require(try await app.uploadToLibrary(photo, token: token).string("id"))
            let before = try await app.waitUntilAssetProcessed(id, token: token)
            let oldThumbnail = try #require((before["urls"] as? [String: Any])?["thumbnail"] as? String)

            // MUT: an edit
            let edited = try await TestImages.jpeg(width: 200, height: 200)
            let replaced = try await app.call(
                .put, "/api/v1/library/assets/\(id)/original", token: token, headers: [.contentType: "image/jpeg"], body: edited)
            #expect(replaced.status == .ok, "\(replaced.text)")
            #expect(replaced.string("id") == id && replaced["fileRevision"] as? Int == 2 && replaced.string("sha256") == Self.sha256(edited))
            let after = try await app.waitUntilAssetProcessed(id, token: token)
            #expect(after["width"] as? Int == 200 && after.string("status") == "ready")
            #expect(after.string("takenAt") == after.string("uploadedAt"), "the edit carries no EXIF date: \(after.text)")
            #expect((after["urls"] as? [String: Any])?["thumbnail"] as? String != oldThumbnail)
            #expect(Data(buffer: try await app.call(.get, "/api/v1/library/assets/\(id)/original", token: token).body) == edited)
            #expect(try await used() == edited.count)
            // the old revision's files are gone
            try await expectEventually { try await app.services.blobs.list(prefix: "library/\(me)/\(id)/1/", after: nil, limit: 10).isEmpty }
            #expect(try await app.services.blobs.list(prefix: "library/\(me)/\(id)/2/", after: nil, limit: 10).count == 3)

            // an edit into bytes another asset holds is refused
            let other = try await TestImages.jpeg(width: 100, height: 100)
            let otherID = try #require(try await app.uploadToLibrary(other, token: token).string("id"))
            _ = try await app.waitUntilAssetProcessed(otherID, token: token)
            let clash = try await app.call(
                .put, "/api/v1/library/assets/\(id)/original", token: token, headers: [.contentType: "image/jpeg"], body: other)
            clash.expectProblem(.conflict)

            // MUT: delete → trash
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(id)", token: token).status == .noContent)
            #expect(Self.ids(try await app.call(.get, "/api/v1/library/assets", token: token)) == [otherID])
            let trash = try await app.call(.get, "/api/v1/library/trash", token: token)
            #expect(Self.ids(trash) == [id])
            #expect((trash["items"] as? [[String: Any]])?.first?["trashedAt"] as? String != nil)
            let inTrash = try await app.uploadToLibrary(edited, token: token)
            #expect(inTrash.expectProblem(.conflict).contains("trash"))
            // restore
            let restored = try await app.call(.post, "/api/v1/library/assets/\(id)/restore", token: token)
            #expect(restored.status == .ok && restored["trashedAt"] == nil)
            #expect(Set(Self.ids(try await app.call(.get, "/api/v1/library/assets", token: token))) == [id, otherID])

            // empty the trash: files and space go, the asset is gone
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(id)", token: token).status == .noContent)
            let emptied = try await app.call(.delete, "/api/v1/library/trash", token: token)
            #expect(emptied["deleted"] as? Int == 1)
            #expect(try await app.call(.get, "/api/v1/library/assets/\(id)", token: token).status == .notFound)
            try await expectEventually { try await app.services.blobs.list(prefix: "library/\(me)/\(id)/", after: nil, limit: 10).isEmpty }
            #expect(try await used() == other.count)
            // the same bytes may come back as a new asset
            #expect(try await app.uploadToLibrary(edited, token: token).status == .created)

            // the sweeper: 29 days in the trash stays, 31 days goes
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(otherID)", token: token).status == .noContent)
            app.clock.advance(by: 29 * 86_400)
            _ = try await app.services.retention.sweep()
            #expect(Self.ids(try await app.call(.get, "/api/v1/library/trash", token: token)) == [otherID])
            app.clock.advance(by: 2 * 86_400)
            _ = try await app.services.retention.sweep()
            #expect(Self.ids(try await app.call(.get, "/api/v1/library/trash", token: token)) == [])
            #expect(try await app.services.blobs.list(prefix: "library/\(me)/\(otherID)/", after: nil, limit: 10).isEmpty)
            // deleting a trashed asset deletes it for good
            let last = try #require(Self.ids(try await app.call(.get, "/api/v1/library/assets", token: token)).first)
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(last)", token: token).status == .noContent)
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(last)", token: token).status == .noContent)
            #expect(try await app.call(.get, "/api/v1/library/assets/\(last)", token: token).status == .notFound)
            #expect(try await app.services.photos.photos.usage(userID: me)?.used == 0)
        }
    }

    @Test(
        "The change feed gives each asset at its latest revision — added, updated, trashed, restored, deleted — in JSON pages and live over SSE",
        arguments: TestEngine.allCases)
    func changeFeed(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let token = try await app.userToken()
            // One after the other: the feed follows each asset's latest revision, and two renders may end in any order.
            let a = try #require(try await app.uploadToLibrary(try await TestImages.jpeg(width: 120, height: 90), token: token).string("id"))
            _ = try await app.waitUntilAssetProcessed(a, token: token)
            let b = try #require(try await app.uploadToLibrary(try await TestImages.jpeg(width: 121, height: 90), token: token).string("id"))
            _ = try await app.waitUntilAssetProcessed(b, token: token)

            // a first sync: everything, in pages
            let page1 = try await app.call(.get, "/api/v1/library/changes?since=0&limit=1", token: token)
            #expect(page1["hasMore"] as? Bool == true)
            let next = try #require(page1["next"] as? Int)
            let page2 = try await app.call(.get, "/api/v1/library/changes?since=\(next)", token: token)
            #expect(page2["hasMore"] as? Bool == false)
            let entries = (page1["items"] as? [[String: Any]] ?? []) + (page2["items"] as? [[String: Any]] ?? [])
            #expect(entries.compactMap { $0["assetId"] as? String } == [a, b])
            #expect(entries.allSatisfy { $0["kind"] as? String == "added" && ($0["asset"] as? [String: Any])?["status"] as? String == "ready" })
            let synced = try #require(page2["next"] as? Int)

            // live: a second phone listens while the first trashes one and deletes it for good
            let port = try #require(app.client.port)
            let stream = try await SSEClient.connect("http://127.0.0.1:\(port)/api/v1/library/changes?since=\(synced)", token: token)
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(a)", token: token).status == .noContent)
            let trashed = try #require(try await stream.next(timeout: .seconds(20)))
            #expect(trashed.name == "trashed" && trashed.data.contains(a))
            #expect(try await app.call(.post, "/api/v1/library/assets/\(a)/restore", token: token).status == .ok)
            #expect(try #require(try await stream.next(timeout: .seconds(20))).name == "restored")
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(b)", token: token).status == .noContent)
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(b)", token: token).status == .noContent)
            let events = try await stream.next(2, timeout: .seconds(20))
            #expect(events.map(\.name) == ["trashed", "deleted"])
            #expect(events.last?.data.contains("\"asset\"") == false)

            // the JSON feed since the first sync: one entry per asset, at its latest state
            let since = try await app.call(.get, "/api/v1/library/changes?since=\(synced)", token: token)
            let latest = (since["items"] as? [[String: Any]] ?? []).map { "\($0["assetId"] as? String ?? ""):\($0["kind"] as? String ?? "")" }
            #expect(latest == ["\(a):restored", "\(b):deleted"])
            // another account's feed holds none of it
            let other = try await app.call(.get, "/api/v1/library/changes?since=0", token: try await app.userToken())
            #expect(Self.ids(other).isEmpty && (other["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(
        "LIB-6: a signed-in member saves an event photo to their library as a copy that outlives the event; a guest without an account cannot",
        arguments: TestEngine.allCases)
    func saveFromEvent(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let eventID = event["id"] as! String
            let bytes = try await TestImages.jpeg(width: 200, height: 150, exif: ["-DateTimeOriginal=2026:06:20 18:30:00"])
            let photo = try #require(try await app.upload(bytes, event: eventID, token: organizer).string("id"))
            _ = try await app.waitUntilProcessed(photo, token: organizer)

            // MUT
            let saved = try await app.call(.post, "/api/v1/photos/\(photo)/save-to-library", token: organizer)
            #expect(saved.status == .created, "\(saved.text)")
            let assetID = try #require(saved.string("id"))
            #expect(saved.string("takenAt") == "2026-06-20T18:30:00.000Z" && saved.string("fileName") == "Olivia1.jpg")
            // again: the same asset
            let again = try await app.call(.post, "/api/v1/photos/\(photo)/save-to-library", token: organizer)
            #expect(again.status == .ok && again.string("id") == assetID)
            // a guest without an account is told to sign in
            let guest = try await app.guestToken(code: event["code"] as! String)
            let refused = try await app.call(.post, "/api/v1/photos/\(photo)/save-to-library", token: guest)
            #expect(refused.expectProblem(.forbidden).contains("Sign in"))

            // the event goes; the copy stays
            _ = try await app.waitUntilAssetProcessed(assetID, token: organizer)
            #expect(try await app.call(.delete, "/api/v1/events/\(eventID)", token: organizer).status == .noContent)
            let original = try await app.call(.get, "/api/v1/library/assets/\(assetID)/original", token: organizer)
            #expect(original.status == .ok && Data(buffer: original.body) == bytes)
        }
    }

    @Test("Hostile input gets a clear refusal and leaves nothing behind", arguments: TestEngine.allCases)
    func hostileInput(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let jpeg = try await TestImages.jpeg(width: 64, height: 48)
            let badDate = try await app.uploadToLibrary(jpeg, token: token, takenAt: "yesterday")
            #expect(badDate.expectProblem(.badRequest).contains("X-Taken-At"))
            let html = try await app.call(
                .post, "/api/v1/library/assets", token: token, headers: [.contentType: "text/html"], body: Data("<html>".utf8))
            html.expectProblem(.unsupportedMediaType)
            let notAnImage = try await app.call(
                .post, "/api/v1/library/assets", token: token, headers: [.contentType: "image/jpeg"], body: Data("#!/bin/sh\nrm -rf /".utf8))
            notAnImage.expectProblem(.unsupportedMediaType)
            let cut = try await app.uploadToLibrary(jpeg.prefix(jpeg.count / 2), token: token)
            cut.expectProblem(.unprocessableContent)
            let tooMany = try await app.call(
                .post, "/api/v1/library/check", json: ["sha256": Array(repeating: String(repeating: "a", count: 64), count: 1001)], token: token)
            tooMany.expectProblem(.contentTooLarge)
            let notHex = try await app.call(.post, "/api/v1/library/check", json: ["sha256": ["../../etc/passwd"]], token: token)
            notHex.expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/library/assets?cursor=not-a-cursor", token: token).expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/library/changes?since=-1", token: token).expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/library/assets/\(UUID().uuidString)", token: token).expectProblem(.notFound)
            // a name with a path keeps only its last part; control characters go
            let named = try await app.uploadToLibrary(jpeg, token: token, fileName: "..%2F..%2Fetc%2Fpass%0Awd.jpg")
            #expect(named.status == .created && named.string("fileName") == "passwd.jpg", "\(named.text)")
            #expect(app.stagedFiles().isEmpty)
            let me = try await Self.me(app, token)
            let stored = app.storedFiles().filter { $0.hasPrefix("library/") }
            #expect(stored.allSatisfy { $0.hasPrefix("library/\(me)/\(named.string("id")!)/1/") }, "\(stored)")
        }
    }
}
