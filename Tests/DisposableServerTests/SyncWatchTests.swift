import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// `disposable sync DIR --watch`, a computer's automatic backup — the real binary left running against a
/// real server that is stopped and started again under it.
@Suite("Folder backup that keeps running (sync --watch)")
struct SyncWatchTests {
    typealias Setup = CLITests.Setup

    /// Waits until the library holds `sha256`, and says how long that took.
    static func waitFor(_ sha256: String, in setup: Setup, _ what: String) async throws -> Duration {
        let started = ContinuousClock.now
        let snapshot = setup
        try await withTimeLimit(.seconds(90), what) {
            while try await !LibrarySyncTests.library(snapshot).contains(sha256) { try await Task.sleep(for: .milliseconds(200)) }
        }
        return ContinuousClock.now - started
    }

    static func waitForLog(_ watcher: ChildProcess, _ text: String) async throws {
        try await withTimeLimit(.seconds(60), "the watcher's log to say \(text)") {
            while !watcher.logTail.contains(text) { try await Task.sleep(for: .milliseconds(100)) }
        }
    }

    @Test("New files go up seconds after they appear, a server restart is waited out, and each file is one line of the log")
    func backsUpAFolder() async throws {
        var setup = try await Setup.start()
        let log = setup.root.appendingPathComponent("watch.log").path
        var watcher: ChildProcess? = nil
        try await withCleanup {
            try await setup.logIn()
            let camera = setup.root.appendingPathComponent("Camera")
            try FileManager.default.createDirectory(at: camera, withIntermediateDirectories: true)
            let first = try await TestImages.jpeg(width: 320, height: 240)
            try first.write(to: camera.appendingPathComponent("IMG_0001.JPG"))
            let running = try ChildProcess(
                try disposableBinary(), ["sync", camera.path, "--watch", "--every", "1"], environment: ["XDG_CONFIG_HOME": setup.config.path],
                log: log)
            watcher = running

            // What was there at the start goes up at once; then a new photo, and a file the library refuses.
            _ = try await Self.waitFor(LibrarySyncTests.sha(first), in: setup, "the first photo")
            let second = try await TestImages.jpeg(width: 321, height: 240)
            try second.write(to: camera.appendingPathComponent("IMG_0002.JPG"))
            try Data("not a photo at all".utf8).write(to: camera.appendingPathComponent("IMG_0003.JPG"))
            let took = try await Self.waitFor(LibrarySyncTests.sha(second), in: setup, "a photo added while it runs")
            // A look a second, a second to settle: seconds, not the half-minute of the library's own poll (20 s allows
            // for a loaded CI machine, where 11 s was seen).
            #expect(took < .seconds(20), "a new file went up after \(took)")

            // A photo added to the library elsewhere (the web page) comes down on the library's stream: seconds, not
            // the fallback's minutes (the last pass was moments ago).
            let fromTheWeb = try await TestImages.jpeg(width: 323, height: 240)
            let added = try await upload(fromTheWeb, to: "\(setup.base)/api/v1/library/assets", token: try setup.token)
            #expect(added.status == 201, "\(added.text)")
            let sent = ContinuousClock.now
            try await withTimeLimit(.seconds(60), "the photo added on the web to reach the folder") {
                while try !LibrarySyncTests.contents(camera).values.contains(LibrarySyncTests.sha(fromTheWeb)) {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            #expect(ContinuousClock.now - sent < .seconds(20), "the web's photo came down after \(ContinuousClock.now - sent)")

            // The server goes away; a photo taken meanwhile goes up once it is back.
            let third = try await TestImages.jpeg(width: 322, height: 240)
            setup = try await setup.restarted {
                try third.write(to: camera.appendingPathComponent("IMG_0004.JPG"))
                try await Self.waitForLog(running, "Trying again in")
            }
            _ = try await Self.waitFor(LibrarySyncTests.sha(third), in: setup, "the photo taken while the server was away")
            try await Self.waitForLog(running, "the server answers again")
            #expect(running.isRunning)

            // One line per file, stamped with its time; the refused file is not sent again pass after pass.
            try await Task.sleep(for: .seconds(3))
            let lines = running.logTail.split(separator: "\n")
            for name in ["IMG_0001.JPG", "IMG_0002.JPG", "IMG_0004.JPG"] {
                #expect(lines.count(where: { $0.hasSuffix("↑ uploaded \(name)") }) == 1, "\(name): \(running.logTail)")
            }
            #expect(lines.count(where: { $0.contains("! skipped IMG_0003.JPG") }) == 1, "\(running.logTail)")
            #expect(lines.allSatisfy { (try? Date.ISO8601FormatStyle().parse(String($0.prefix(20)))) != nil }, "\(running.logTail)")
            #expect(try await LibrarySyncTests.library(setup).count == 4)

            // The folder goes away (a drive unmounted): nothing leaves the library; it comes back: nothing to do.
            let away = setup.root.appendingPathComponent("Camera-away")
            try FileManager.default.moveItem(at: camera, to: away)
            try await Self.waitForLog(running, "is not there or is empty")
            try await Task.sleep(for: .seconds(3))
            let kept = try await LibrarySyncTests.library(setup)
            let trashed = try await LibrarySyncTests.library(setup, trash: true)
            #expect(kept.count == 4 && trashed.isEmpty, "\(kept) \(trashed)")
            try FileManager.default.moveItem(at: away, to: camera)
            try await Self.waitForLog(running, "Camera is back")

            // Ctrl-C ends it; the folder's state is whole, and a plain sync finds nothing left to do.
            running.signal(SIGINT)
            _ = await running.exited()
            let quiet = try await setup.cli(["sync", camera.path])
            #expect(quiet.output.contains("0 uploaded, 0 downloaded"), "\(quiet.output) \(quiet.errors)")
        } cleanup: {
            if let watcher, watcher.isRunning { watcher.signal(SIGKILL) }
            await setup.stop()
        }
    }

    @Test("A first pass that downloads the library, then a file written slowly while renders' news arrives: it goes up")
    func afterDownloadingTheLibrary() async throws {
        let setup = try await Setup.start()
        let log = setup.root.appendingPathComponent("watch-download.log").path
        var watcher: ChildProcess? = nil
        try await withCleanup {
            // setup: three photos in the library, sent from elsewhere (their renders still going when the watch starts)
            try await setup.logIn()
            for width in [400, 401, 402] {
                let photo = try await TestImages.jpeg(width: width, height: 300)
                let added = try await upload(photo, to: "\(setup.base)/api/v1/library/assets", token: try setup.token)
                #expect(added.status == 201, "\(added.text)")
            }
            let folder = setup.root.appendingPathComponent("Pictures")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let running = try ChildProcess(
                try disposableBinary(), ["sync", folder.path, "--watch", "--every", "1", "--verbose"],
                environment: ["XDG_CONFIG_HOME": setup.config.path], log: log)
            watcher = running
            try await withTimeLimit(.seconds(60), "the library to come down") {
                while try LibrarySyncTests.contents(folder).count < 3 { try await Task.sleep(for: .milliseconds(100)) }
            }

            // MUT: a photo copied in 3 s later, written in two halves a second apart
            try await Task.sleep(for: .seconds(3))
            let photo = try await TestImages.jpeg(width: 403, height: 300)
            let target = folder.appendingPathComponent("new.jpg")
            try photo.prefix(photo.count / 2).write(to: target)
            try await Task.sleep(for: .seconds(1))
            let handle = try FileHandle(forWritingTo: target)
            try handle.seekToEnd()
            try handle.write(contentsOf: photo.dropFirst(photo.count / 2))
            try handle.close()

            // validate: it goes up, and the folder's state says so
            let took = try await Self.waitFor(LibrarySyncTests.sha(photo), in: setup, "the photo copied in after the first pass")
            #expect(took < .seconds(40), "\(took): \(running.logTail)")
            try await Self.waitForLog(running, "uploaded new.jpg")
            #expect(running.isRunning)
        } cleanup: {
            if let watcher, watcher.isRunning { watcher.signal(SIGKILL) }
            await setup.stop()
        }
    }

    @Test("--watch refuses --dry-run and --json, and an interval out of range")
    func refusesWrongFlags() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            for flags in [["--dry-run"], ["--json"], ["--every", "0"]] {
                let run = try await setup.cli(["sync", setup.root.path, "--watch"] + flags)
                #expect(run.status == 64, "\(flags): \(run.status) \(run.errors)")
                #expect(run.errors.contains("--"), "\(run.errors)")
            }
        } cleanup: {
            await setup.stop()
        }
    }
}
