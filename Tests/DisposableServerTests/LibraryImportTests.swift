import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// LIB-5 (P-I-211): `disposable import` — a Google Takeout archive (ZIP and folder) and an Apple Photos export folder,
/// built here in their own layouts, through the real binary against a real server.
@Suite("Import into the library (LIB-5)")
struct LibraryImportTests {
    typealias Setup = CLITests.Setup

    /// The library's assets by file name: (capture time, SHA-256).
    static func library(_ setup: Setup) async throws -> [String: (takenAt: String, sha256: String)] {
        let page = try await get("\(setup.base)/api/v1/library/assets?limit=100", token: try setup.token)
        var found: [String: (String, String)] = [:]
        for item in page.json["items"] as? [[String: Any]] ?? [] {
            found[item["fileName"] as? String ?? ""] = (item["takenAt"] as? String ?? "", item["sha256"] as? String ?? "")
        }
        return found
    }

    /// How many of the library's assets are rendered (ready).
    static func ready(_ setup: Setup) async throws -> Int {
        let page = try await get("\(setup.base)/api/v1/library/assets?limit=100", token: try setup.token)
        return (page.json["items"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "ready" }.count
    }

    /// `folder`'s files in a ZIP, by their paths inside it (Python's zipfile, as exports are made elsewhere).
    static func zip(_ folder: URL, into zip: URL) async throws {
        let zipped = try await runTool(
            "/usr/bin/python3",
            [
                "-c",
                "import os, sys, zipfile\nroot = sys.argv[1]\nwith zipfile.ZipFile(sys.argv[2], 'w') as z:\n"
                    + "    for d, _, files in os.walk(root):\n        for f in files:\n"
                    + "            p = os.path.join(d, f); z.write(p, os.path.relpath(p, root))",
                folder.path, zip.path,
            ])
        #expect(zipped.status == 0, "\(zipped.output)")
    }

    @Test(
        "A Takeout ZIP: capture times from the JSON sidecars (both namings), the edited version instead of its original, a broken video skipped with why; run twice, nothing twice"
    )
    func takeout() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let folder = setup.root.appendingPathComponent("takeout-src/Takeout/Google Photos/Photos from 2019")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let first = try await TestImages.jpeg(width: 300, height: 200)
            let original = try await TestImages.jpeg(width: 301, height: 200)
            let edited = try await TestImages.jpeg(width: 200, height: 301)
            try first.write(to: folder.appendingPathComponent("IMG_0001.jpg"))
            try Data(#"{"title":"IMG_0001.jpg","photoTakenTime":{"timestamp":"1562241600","formatted":"4 Jul 2019"}}"#.utf8)
                .write(to: folder.appendingPathComponent("IMG_0001.jpg.json"))
            try original.write(to: folder.appendingPathComponent("IMG_0002.jpg"))
            try edited.write(to: folder.appendingPathComponent("IMG_0002-edited.jpg"))
            try Data(#"{"photoTakenTime":{"timestamp":"1577880000"}}"#.utf8)
                .write(to: folder.appendingPathComponent("IMG_0002.jpg.supplemental-metadata.json"))
            try Data("not really a video".utf8).write(to: folder.appendingPathComponent("VID_0003.mp4"))
            try Data(#"{"title":"Photos from 2019"}"#.utf8).write(to: folder.appendingPathComponent("metadata.json"))
            let zip = setup.root.appendingPathComponent("takeout-20260101.zip")
            try await Self.zip(setup.root.appendingPathComponent("takeout-src"), into: zip)

            // MUT
            let run = try await setup.cli(["import", zip.path])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("2 imported, 0 already there, 2 skipped."), "\(run.output)")
            #expect(run.output.contains("skipped Takeout/Google Photos/Photos from 2019/IMG_0002.jpg: its edited version"), "\(run.output)")
            #expect(run.output.contains("VID_0003.mp4: This file is not a photo or video we accept"), "\(run.output)")

            // validate: the sidecars' times, the edited bytes
            let assets = try await Self.library(setup)
            #expect(assets["IMG_0001.jpg"]?.takenAt == "2019-07-04T12:00:00.000Z")
            #expect(assets["IMG_0002-edited.jpg"]?.takenAt == "2020-01-01T12:00:00.000Z")
            #expect(assets["IMG_0002-edited.jpg"]?.sha256 == LibrarySyncTests.sha(edited))
            #expect(assets.count == 2)
            // again, from the unpacked folder: everything is there already
            let again = try await setup.cli(["import", setup.root.appendingPathComponent("takeout-src").path])
            #expect(again.output.contains("0 imported, 2 already there, 2 skipped."), "\(again.output)")
            #expect(try await Self.library(setup).count == 2)
        } cleanup: {
            await setup.stop()
        }
    }

    @Test(
        "An Apple Photos export folder: HEIC and JPEG, capture time from the EXIF or an XMP sidecar, a live photo's MOV with its still, a lone video as a video, an AVI skipped"
    )
    func applePhotosExport() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let folder = setup.root.appendingPathComponent("Export")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try await TestImages.image("heic", width: 320, height: 240).write(to: folder.appendingPathComponent("IMG_1000.HEIC"))
            let movie = try await LivePhotoTests.clip("mov")
            try movie.write(to: folder.appendingPathComponent("IMG_1000.MOV"))
            let alone = try await LivePhotoTests.clip("mp4")
            try alone.write(to: folder.appendingPathComponent("VID_2000.MP4"))  // a video alone
            try Data("RIFF\0\0\0\0AVI LIST".utf8).write(to: folder.appendingPathComponent("OLD_0001.AVI"))
            try await TestImages.jpeg(width: 320, height: 240, exif: ["-DateTimeOriginal=2021:03:04 05:06:07"])
                .write(to: folder.appendingPathComponent("IMG_1001.JPG"))
            try await TestImages.jpeg(width: 321, height: 240).write(to: folder.appendingPathComponent("IMG_1002.JPG"))
            try Data(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:DateTimeOriginal="2020-02-02T10:00:00"/>
                </rdf:RDF></x:xmpmeta>
                """.utf8
            ).write(to: folder.appendingPathComponent("IMG_1002.xmp"))

            let run = try await setup.cli(["import", folder.path, "--json"])
            #expect(run.status == 0, "\(run.errors)")
            let outcomes = try #require(run.json as? [[String: Any]], "\(run.output)")
            #expect(outcomes.filter { $0["status"] as? String == "imported" }.count == 4)
            #expect(outcomes.first { $0["file"] as? String == "VID_2000.MP4" }?["status"] as? String == "imported")
            #expect(outcomes.first { $0["file"] as? String == "OLD_0001.AVI" }?["status"] as? String == "skipped")
            #expect(!outcomes.contains { $0["file"] as? String == "IMG_1000.MOV" }, "sent with its still")
            // A JPEG's capture time is read when it is rendered, in the background.
            try await withTimeLimit(.seconds(120), "the imported photos' renders") {
                while try await Self.ready(setup) < 4 { try await Task.sleep(for: .milliseconds(200)) }
            }
            let assets = try await Self.library(setup)
            #expect(assets["IMG_1001.JPG"]?.takenAt == "2021-03-04T05:06:07.000Z", "the EXIF date")
            #expect(assets["IMG_1002.JPG"]?.takenAt == "2020-02-02T10:00:00.000Z", "the XMP sidecar's date")
            // The live photo: its still with its video.
            let live = try await get("\(setup.base)/api/v1/library/assets?limit=100", token: try setup.token)
            let heic = try #require((live.json["items"] as? [[String: Any]])?.first { $0["fileName"] as? String == "IMG_1000.HEIC" })
            let video = try #require((heic["urls"] as? [String: Any])?["video"] as? String)
            #expect(try await get(setup.base + video, token: try setup.token).body == movie)
            let lone = try #require((live.json["items"] as? [[String: Any]])?.first { $0["fileName"] as? String == "VID_2000.MP4" })
            #expect(lone["mediaType"] as? String == "video" && lone["byteSize"] as? Int == alone.count)
            let again = try await setup.cli(["import", folder.path])
            #expect(again.output.contains("0 imported, 4 already there, 1 skipped."), "\(again.output)")
        } cleanup: {
            await setup.stop()
        }
    }
}
