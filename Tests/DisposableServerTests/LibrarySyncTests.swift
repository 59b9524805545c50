import Crypto
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// LIB-4 (P-I-120/170/270): `disposable sync DIR`, the real binary against a real server — two folders ("two
/// phones") kept in step through one library, and runs killed halfway.
@Suite("Folder sync (LIB-4)")
struct LibrarySyncTests {
    typealias Setup = CLITests.Setup

    /// Each photo file of a folder (state file and hidden files aside) with its SHA-256.
    static func contents(_ folder: URL) throws -> [String: String] {
        var found: [String: String] = [:]
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let item = walker?.nextObject() as? URL {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: item.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let data = try Data(contentsOf: item)
            found[String(item.path.dropFirst(folder.path.count + 1))] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
        return found
    }

    static func sha(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// The library's timeline and trash, as sets of SHA-256.
    static func library(_ setup: Setup, trash: Bool = false) async throws -> Set<String> {
        let page = try await get("\(setup.base)/api/v1/library/\(trash ? "trash" : "assets")?limit=100", token: try setup.token)
        return Set((page.json["items"] as? [[String: Any]] ?? []).compactMap { $0["sha256"] as? String })
    }

    func sync(_ setup: Setup, _ folder: URL, _ extra: [String] = []) async throws -> CLITests.Run {
        let run = try await setup.cli(["sync", folder.path] + extra)
        #expect(run.status == 0, "sync \(folder.lastPathComponent): \(run.output) \(run.errors)")
        return run
    }

    @Test("Two folders syncing through one library converge after adds, edits and deletes on both sides")
    func twoPhonesConverge() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let phoneA = setup.root.appendingPathComponent("phone-a")
            let phoneB = setup.root.appendingPathComponent("phone-b")
            try FileManager.default.createDirectory(at: phoneA.appendingPathComponent("DCIM"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: phoneB, withIntermediateDirectories: true)
            let a = try await TestImages.jpeg(width: 300, height: 200, exif: ["-DateTimeOriginal=2024:07:01 10:00:00"])
            let b = try await TestImages.jpeg(width: 301, height: 200)
            let c = try await TestImages.image("png", width: 200, height: 200)
            try a.write(to: phoneA.appendingPathComponent("a.jpg"))
            try b.write(to: phoneA.appendingPathComponent("DCIM/b.jpg"))
            try c.write(to: phoneA.appendingPathComponent("c.png"))

            // The first phone sends its three; the second, empty, receives them.
            let first = try await sync(setup, phoneA)
            #expect(first.output.contains("3 uploaded, 0 downloaded"), "\(first.output)")
            let second = try await sync(setup, phoneB)
            #expect(second.output.contains("0 uploaded, 3 downloaded"), "\(second.output)")
            #expect(Set(try Self.contents(phoneB).values) == Set(try Self.contents(phoneA).values))
            #expect(Set(try Self.contents(phoneB).keys) == ["a.jpg", "b.jpg", "c.png"])

            // MUT: on A, a new photo, a deletion and an edit; on B, a new photo and a deletion.
            let d = try await TestImages.jpeg(width: 302, height: 200)
            let bEdited = try await TestImages.jpeg(width: 200, height: 300)
            let e = try await TestImages.jpeg(width: 303, height: 200)
            try d.write(to: phoneA.appendingPathComponent("d.jpg"))
            try FileManager.default.removeItem(at: phoneA.appendingPathComponent("a.jpg"))
            try bEdited.write(to: phoneA.appendingPathComponent("DCIM/b.jpg"))
            try e.write(to: phoneB.appendingPathComponent("e.jpg"))
            try FileManager.default.removeItem(at: phoneB.appendingPathComponent("c.png"))
            _ = try await sync(setup, phoneA)
            _ = try await sync(setup, phoneB)
            _ = try await sync(setup, phoneA)

            // validate: the same photos on both phones and in the library; the deleted ones in the library's trash
            let expected: Set<String> = [Self.sha(bEdited), Self.sha(d), Self.sha(e)]
            #expect(Set(try Self.contents(phoneA).values) == expected)
            #expect(Set(try Self.contents(phoneB).values) == expected)
            #expect(try Self.contents(phoneA).count == 3 && (try Self.contents(phoneB).count) == 3)
            #expect(try await Self.library(setup) == expected)
            #expect(try await Self.library(setup, trash: true) == [Self.sha(a), Self.sha(c)])
            // and nothing more to do
            let quiet = try await sync(setup, phoneB)
            #expect(quiet.output.contains("0 uploaded, 0 downloaded, 0 updated, 0 moved to the library's trash, 0 removed here"), "\(quiet.output)")

            // --dry-run says, and does nothing; --no-delete keeps the library's copy of a file removed here
            try FileManager.default.removeItem(at: phoneA.appendingPathComponent("d.jpg"))
            let dry = try await sync(setup, phoneA, ["--dry-run"])
            #expect(dry.output.contains("Would have: 0 uploaded, 0 downloaded, 0 updated, 1 moved to the library's trash"), "\(dry.output)")
            _ = try await sync(setup, phoneA, ["--no-delete"])
            #expect(try await Self.library(setup).contains(Self.sha(d)))
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("A sync killed halfway, up or down, and run again loses and duplicates nothing")
    func killedAndRunAgain() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let phoneA = setup.root.appendingPathComponent("phone-a")
            let phoneB = setup.root.appendingPathComponent("phone-b")
            try FileManager.default.createDirectory(at: phoneA, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: phoneB, withIntermediateDirectories: true)
            var written: Set<String> = []
            for index in 0..<24 {
                let photo = try await TestImages.jpeg(width: 1600 + index, height: 1200)
                try photo.write(to: phoneA.appendingPathComponent(String(format: "IMG_%04d.JPG", index)))
                written.insert(Self.sha(photo))
            }
            let token = try setup.token
            @Sendable func stored() async throws -> Int {
                let page = try await get("\(setup.base)/api/v1/library/assets?limit=100", token: token)
                return (page.json["items"] as? [Any])?.count ?? 0
            }

            // Up: killed after the first photos reached the library.
            let up = try ChildProcess(try disposableBinary(), ["sync", phoneA.path], environment: ["XDG_CONFIG_HOME": setup.config.path])
            try await CLITests.kill(up, "the first photos") { try await stored() >= 3 }
            #expect(await up.exited() == .signal(SIGKILL))
            let before = try await stored()
            #expect(before >= 3 && before < 24, "killed halfway: \(before) of 24")
            _ = try await sync(setup, phoneA)
            #expect(try await Self.library(setup) == written)
            #expect(try await stored() == 24, "each photo once")

            // Down: killed after the first files arrived.
            let down = try ChildProcess(try disposableBinary(), ["sync", phoneB.path], environment: ["XDG_CONFIG_HOME": setup.config.path])
            try await CLITests.kill(down, "the first downloads") { ((try? Self.contents(phoneB))?.count ?? 0) >= 3 }
            #expect(await down.exited() == .signal(SIGKILL))
            #expect(try Self.contents(phoneB).count < 24, "killed halfway")
            _ = try await sync(setup, phoneB)
            let files = try Self.contents(phoneB)
            #expect(files.count == 24 && Set(files.values) == written, "each photo once, whole")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: phoneB.path).filter { $0.hasSuffix(".part") }
            #expect(leftovers.isEmpty)
            #expect(try await stored() == 24)
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("Videos sync like photos; a live photo's MOV beside its HEIC goes up as its motion, not as a video of its own")
    func videosAndLivePhotos() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let phoneA = setup.root.appendingPathComponent("phone-a")
            let phoneB = setup.root.appendingPathComponent("phone-b")
            for folder in [phoneA, phoneB] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let still = try await TestImages.image("heic", width: 320, height: 240)
            let motion = try await LivePhotoTests.clip("mov")
            let video = try await TestVideos.make("mp4", seconds: 1)
            try still.write(to: phoneA.appendingPathComponent("IMG_1000.HEIC"))
            try motion.write(to: phoneA.appendingPathComponent("IMG_1000.MOV"))
            try video.write(to: phoneA.appendingPathComponent("VID_2000.mp4"))

            let first = try await sync(setup, phoneA)
            #expect(first.output.contains("2 uploaded, 0 downloaded"), "\(first.output)")
            let page = try await get("\(setup.base)/api/v1/library/assets?limit=100", token: try setup.token)
            let items = page.json["items"] as? [[String: Any]] ?? []
            let live = try #require(items.first { $0["fileName"] as? String == "IMG_1000.HEIC" })
            let liveVideo = try #require((live["urls"] as? [String: Any])?["video"] as? String)
            #expect(try await get(setup.base + liveVideo, token: try setup.token).body == motion)
            #expect(items.first { $0["fileName"] as? String == "VID_2000.mp4" }?["mediaType"] as? String == "video")
            #expect(items.count == 2)

            // Run again: nothing goes up twice, nothing is taken for deleted.
            let again = try await sync(setup, phoneA)
            #expect(again.output.contains("0 uploaded, 0 downloaded, 0 updated, 0 moved"), "\(again.output)")
            // The other phone gets the still and the video, byte for byte.
            _ = try await sync(setup, phoneB)
            let files = try Self.contents(phoneB)
            #expect(files["IMG_1000.HEIC"] == Self.sha(still) && files["VID_2000.mp4"] == Self.sha(video), "\(files)")
            #expect(try await Self.library(setup, trash: true).isEmpty)
        } cleanup: {
            await setup.stop()
        }
    }
}
