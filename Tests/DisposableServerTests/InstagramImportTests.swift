import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// `disposable import --instagram` — Instagram's "Download your information" export (JSON), built here in
/// both layouts found in the wild, through the real binary against a real server; and `X-Caption`'s limits.
@Suite("Import an Instagram export into the library")
struct InstagramImportTests {
    typealias Setup = CLITests.Setup

    /// How Instagram writes text in its JSON: each byte of the UTF-8 as a character of its own, escaped.
    static func mangled(_ text: String) -> String {
        text.utf8.map { String(format: "\\u%04x", $0) }.joined()
    }

    /// The library's assets by file name: (capture time, caption).
    static func library(_ setup: Setup) async throws -> [String: (takenAt: String, caption: String?)] {
        let page = try await get("\(setup.base)/api/v1/library/assets?limit=100", token: try setup.token)
        var found: [String: (String, String?)] = [:]
        for item in page.json["items"] as? [[String: Any]] ?? [] {
            found[item["fileName"] as? String ?? ""] = (item["takenAt"] as? String ?? "", item["caption"] as? String)
        }
        return found
    }

    /// An export: `lists` (the folder of its JSON lists, by layout) and the media files, under `root`.
    static func export(at root: URL, lists: String, prefix: String) async throws {
        let media = root.appendingPathComponent("media")
        for folder in ["posts/202405", "stories/202406", "reels/202407"] {
            try FileManager.default.createDirectory(at: media.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let width = prefix == "a" ? 300 : 310
        for (index, folder) in ["posts/202405", "posts/202405", "posts/202405", "stories/202406"].enumerated() {
            try await TestImages.jpeg(width: width + index, height: 200).write(
                to: media.appendingPathComponent("\(folder)/\(prefix)\(index + 1).jpg"))
        }
        try await TestVideos.make("mp4", seconds: 1, options: ["-metadata", "title=\(prefix)"])
            .write(to: media.appendingPathComponent("reels/202407/\(prefix)5.mp4"))
        let listFolder = root.appendingPathComponent(lists)
        try FileManager.default.createDirectory(at: listFolder, withIntermediateDirectories: true)
        // One photo with its caption; a post of two photos with the caption on the post; a photo the export lost.
        let posts = """
            [{"media":[{"uri":"media/posts/202405/\(prefix)1.jpg","creation_timestamp":1715600000,"title":"\(mangled("Café au soleil ☀️"))",
               "media_metadata":{"photo_metadata":{"exif_data":[{"latitude":48.85}]}}}]},
             {"media":[{"uri":"media/posts/202405/\(prefix)2.jpg","creation_timestamp":1715700000,"title":""},
                       {"uri":"media/posts/202405/\(prefix)3.jpg","creation_timestamp":1715700000,"title":""}],
              "title":"\(mangled("Deux photos, une légende\nsur deux lignes"))","creation_timestamp":1715700000},
             {"media":[{"uri":"media/posts/202405/\(prefix)9.jpg","creation_timestamp":1715800000,"title":"perdue"}]}]
            """
        try Data(posts.utf8).write(to: listFolder.appendingPathComponent("posts_1.json"))
        let stories = #"{"ig_stories":[{"uri":"media/stories/202406/\#(prefix)4.jpg","creation_timestamp":1717200000,"title":""}]}"#
        try Data(stories.utf8).write(to: listFolder.appendingPathComponent("stories.json"))
        let reels = """
            {"ig_reels_media":[{"media":[{"uri":"media/reels/202407/\(prefix)5.mp4","creation_timestamp":1719800000,"title":"\(mangled("Reel à la plage"))"}]}]}
            """
        try Data(reels.utf8).write(to: listFolder.appendingPathComponent("reels.json"))
        // What else the export holds: lists of other things, HTML.
        try Data(#"{"relationships_following":[]}"#.utf8).write(to: listFolder.appendingPathComponent("following.json"))
    }

    @Test(
        "Both layouts (a ZIP of today's, a folder of the older): posts, carousels, stories and reels with their dates and captions read back from Instagram's escaping; run twice, nothing twice"
    )
    func bothLayouts() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            // Today's layout, inside a folder named after the account, zipped.
            let current = setup.root.appendingPathComponent("current")
            try await Self.export(
                at: current.appendingPathComponent("instagram-ana_20260101"), lists: "your_instagram_activity/media", prefix: "a")
            let zip = setup.root.appendingPathComponent("instagram-ana-2026-01-01.zip")
            try await LibraryImportTests.zip(current, into: zip)
            // The older layout, unpacked.
            let older = setup.root.appendingPathComponent("older")
            try await Self.export(at: older, lists: "content", prefix: "b")

            // MUT
            for source in [zip, older] {
                let run = try await setup.cli(["import", "--instagram", source.path])
                #expect(run.status == 0, "\(run.errors)")
                #expect(run.output.contains("5 imported, 0 already there, 1 skipped."), "\(run.output)")
                #expect(run.output.contains("9.jpg: named in the export's lists, but not in the export"), "\(run.output)")
            }

            // validate: dates from the lists, captions as written (carousel photos share their post's), stories without
            let library = try await Self.library(setup)
            #expect(library.count == 10, "\(library.keys.sorted())")
            for prefix in ["a", "b"] {
                #expect(library["\(prefix)1.jpg"]?.caption == "Café au soleil ☀️")
                #expect(library["\(prefix)1.jpg"]?.takenAt.hasPrefix("2024-05-13T11:33:20") == true, "\(library["\(prefix)1.jpg"]?.takenAt ?? "")")
                #expect(library["\(prefix)2.jpg"]?.caption == "Deux photos, une légende\nsur deux lignes")
                #expect(library["\(prefix)3.jpg"]?.caption == "Deux photos, une légende\nsur deux lignes")
                #expect(library["\(prefix)4.jpg"] != nil && library["\(prefix)4.jpg"]?.caption == nil)
                #expect(library["\(prefix)4.jpg"]?.takenAt.hasPrefix("2024-06-01T00:00:00") == true)
                #expect(library["\(prefix)5.mp4"]?.caption == "Reel à la plage")
            }

            // Again: everything is there already.
            let again = try await setup.cli(["import", "--instagram", zip.path])
            #expect(again.output.contains("0 imported, 5 already there, 1 skipped."), "\(again.output)")

            // Not an Instagram export: said so, nothing sent.
            let takeout = setup.root.appendingPathComponent("not-instagram")
            try FileManager.default.createDirectory(at: takeout, withIntermediateDirectories: true)
            try await TestImages.jpeg(width: 320, height: 200).write(to: takeout.appendingPathComponent("IMG_1.jpg"))
            let wrong = try await setup.cli(["import", "--instagram", takeout.path])
            #expect(wrong.status == 1 && wrong.errors.contains("JSON format"), "\(wrong.errors)")
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("X-Caption: kept with the asset, refused with a sentence when it holds control characters or runs past 2200 characters")
    func captionHeader() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let url = "\(setup.base)/api/v1/library/assets"
            let token = try setup.token
            let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
            let kept = try await upload(
                try await TestImages.jpeg(width: 330, height: 200), to: url, token: token, headers: [("X-Caption", encode("Ma légende\n🎉"))])
            #expect(kept.status == 201 && kept.json["caption"] as? String == "Ma légende\n🎉", "\(kept.text)")
            for (caption, why) in [
                ("bell\u{7}", "control characters"), ("gpj\u{202E}.exe", "control characters"), (String(repeating: "é", count: 2201), "2200"),
            ] {
                let refused = try await upload(
                    try await TestImages.jpeg(width: 331, height: 200), to: url, token: token, headers: [("X-Caption", encode(caption))])
                #expect(refused.status == 400 || refused.status == 422, "\(refused.status) \(refused.text)")
                #expect(refused.text.contains(why) && refused.text.contains("caption"), "\(refused.text)")
            }
            let raw = try await upload(try await TestImages.jpeg(width: 332, height: 200), to: url, token: token, headers: [("X-Caption", "%E9%ZZ")])
            #expect(raw.status == 400 && raw.text.contains("X-Caption"), "\(raw.text)")
            #expect(try await Self.library(setup).count == 1)
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("Through tus too: a caption is checked when the upload is created, before any byte is kept, and kept with the asset")
    func captionThroughTus() async throws {
        try await TestApp.run(.sqlite) { app in
            let user = try await app.userToken()
            let photo = try await TestImages.jpeg(width: 334, height: 200)
            func create(_ caption: String) async throws -> APIResponse {
                let headers: HTTPFields = [
                    .init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(user)", .init("Upload-Length")!: String(photo.count),
                    .init("Upload-Metadata")!: ResumableUploadTests.metadata(["target": "library", "caption": caption]),
                ]
                return try await app.send("/api/v1/uploads", method: .post, headers: headers, body: nil)
            }
            #expect(try await create("bell\u{7}").expectProblem(.unprocessableContent).contains("control characters"))
            let created = try await create("Au bord de l'eau")
            let location = try #require(created.headers[.location], "\(created.text)")
            let sent = try await app.send(
                location, method: .patch,
                headers: [
                    .init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(user)", .init("Upload-Offset")!: "0",
                    .contentType: "application/offset+octet-stream",
                ], body: ByteBuffer(data: photo))
            let assetID = try #require(sent.headers[.init("Disposable-Media-Id")!], "\(sent.text)")
            #expect(try await app.call(.get, "/api/v1/library/assets/\(assetID)", token: user).string("caption") == "Au bord de l'eau")
            // The caption is the person's data: in their export too
            let export = try await app.call(.get, "/api/v1/me/export", token: user)
            let zip = try writeTemporaryFile(Data(buffer: export.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: zip) }
            let data = try JSONSerialization.jsonObject(with: try await extract(zip, "data.json")) as? [String: Any] ?? [:]
            #expect((data["library"] as? [[String: Any]])?.first?["caption"] as? String == "Au bord de l'eau", "\(data)")
        }
    }

    /// An export whose photo claims 1,000 bytes and inflates to 256 MB of zeros (a ZIP bomb: 256 KB on disk), and
    /// whose list claims 1,000 bytes and inflates to 64 MB.
    static func bomb(at zip: URL) async throws {
        let made = try await runTool(
            "/usr/bin/python3",
            [
                "-c",
                """
                import struct, sys, zipfile
                path = sys.argv[1]
                with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
                    z.writestr('your_instagram_activity/media/posts_1.json',
                               '[{"media":[{"uri":"media/posts/bomb.jpg","creation_timestamp":1715600000,"title":""}]}]')
                    with z.open('media/posts/bomb.jpg', 'w') as f:
                        for _ in range(256): f.write(bytes(1 << 20))
                    with z.open('your_instagram_activity/media/stories.json', 'w') as f:
                        for _ in range(64): f.write(b' ' * (1 << 20))
                data = bytearray(open(path, 'rb').read())
                for name in (b'media/posts/bomb.jpg', b'your_instagram_activity/media/stories.json'):
                    at = data.find(name)
                    while at >= 0:
                        if data[at - 30:at - 26] == b'PK\\x03\\x04': struct.pack_into('<I', data, at - 30 + 22, 1000)
                        if data[at - 46:at - 42] == b'PK\\x01\\x02': struct.pack_into('<I', data, at - 46 + 24, 1000)
                        at = data.find(name, at + 1)
                open(path, 'wb').write(data)
                """,
                zip.path,
            ])
        #expect(made.status == 0, "\(made.output)")
    }

    @Test("A ZIP bomb: entries that inflate past the size they claim are stopped there, said, and nothing of them is sent")
    func zipBomb() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let zip = setup.root.appendingPathComponent("instagram-bomb.zip")
            try await Self.bomb(at: zip)
            let started = ContinuousClock.now
            let run = try await setup.cli(["import", "--instagram", zip.path])
            #expect(run.output.contains("bomb.jpg: inflates past the size the archive declares"), "\(run.output) \(run.errors)")
            #expect(run.output.contains("0 imported"), "\(run.output)")
            // Stopped at 1,000 bytes, not after inflating 256 MB (seconds, on main).
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(try await Self.library(setup).isEmpty)
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("An entry larger than the server takes is not unpacked: said, skipped, the rest imported")
    func entryLargerThanTheServerTakes() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            // setup: a photo whose archive says it is 2 GB (the server takes at most 1 GB), beside a real one
            let zip = setup.root.appendingPathComponent("instagram-large.zip")
            let photo = try await TestImages.jpeg(width: 320, height: 240)
            let photoFile = try writeTemporaryFile(photo, suffix: ".jpg")
            defer { try? FileManager.default.removeItem(at: photoFile) }
            let made = try await runTool(
                "/usr/bin/python3",
                [
                    "-c",
                    """
                    import struct, sys, zipfile
                    path, photo = sys.argv[1], open(sys.argv[2], 'rb').read()
                    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
                        z.writestr('your_instagram_activity/media/posts_1.json',
                                   '[{"media":[{"uri":"media/posts/huge.jpg","creation_timestamp":1715600000,"title":""},'
                                   '{"uri":"media/posts/fine.jpg","creation_timestamp":1715600000,"title":""}]}]')
                        z.writestr('media/posts/huge.jpg', photo)
                        z.writestr('media/posts/fine.jpg', photo)
                    data = bytearray(open(path, 'rb').read())
                    name = b'media/posts/huge.jpg'
                    at = data.find(name)
                    while at >= 0:
                        if data[at - 30:at - 26] == b'PK\\x03\\x04': struct.pack_into('<I', data, at - 30 + 22, 2_000_000_000)
                        if data[at - 46:at - 42] == b'PK\\x01\\x02': struct.pack_into('<I', data, at - 46 + 24, 2_000_000_000)
                        at = data.find(name, at + 1)
                    open(path, 'wb').write(data)
                    """,
                    zip.path, photoFile.path,
                ])
            #expect(made.status == 0, "\(made.output)")

            // MUT
            let run = try await setup.cli(["import", "--instagram", zip.path])

            // validate
            #expect(run.output.contains("huge.jpg: larger than the"), "\(run.output) \(run.errors)")
            #expect(run.output.contains("1 imported"), "\(run.output)")
            #expect(try await Self.library(setup).count == 1)
        } cleanup: {
            await setup.stop()
        }
    }
}
