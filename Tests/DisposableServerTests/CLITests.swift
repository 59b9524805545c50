import AsyncHTTPClient
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// CLI-1: the real `disposable` binary's client commands against a real `disposable serve`.
@Suite("The command-line client (CLI-1)")
struct CLITests {
    @Test("login, event create/list/show/qr/end/download, upload a folder twice, logout; errors have their sentence and exit code")
    func commands() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            let wrong = try await setup.cli(["login", "--server", setup.base, "--email", "ana@example.com", "--password-stdin"], stdin: "nope")
            #expect(wrong.status == 1 && wrong.errors.contains("error: ") && !wrong.errors.contains("Problem"), "\(wrong.errors)")
            let notYet = try await setup.cli(["event", "list"])
            #expect(notYet.status == 3 && notYet.errors.contains("disposable login"))

            try await setup.logIn()
            let saved = try FileManager.default.attributesOfItem(atPath: setup.config.appendingPathComponent("disposable/credentials.json").path)
            #expect((saved[.posixPermissions] as? Int) == 0o600)

            let created = try await setup.cli(["event", "create", "--name", "Léa's 18th", "--shots", "12", "--json"])
            let event = try #require(created.json as? [String: Any], "\(created.errors)")
            let id = try #require(event["id"] as? String)
            #expect(event["shotsPerGuest"] as? Int == 12 && event["name"] as? String == "Léa's 18th")
            let listed = try await setup.cli(["event", "list", "--json"])
            #expect((listed.json as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            let shown = try await setup.cli(["event", "show", id])
            #expect(shown.status == 0 && shown.output.contains("Léa's 18th") && shown.output.contains(event["code"] as! String))

            // The QR code, in the terminal and as a PNG, both read by zbar as the event's link.
            let joinURL = try #require(event["joinURL"] as? String)
            let qr = try await setup.cli(["event", "qr", id])
            let drawn = setup.root.appendingPathComponent("terminal-qr.pgm")
            try Self.pgm(fromTerminal: qr.output).write(to: drawn)
            #expect(try await zbar(drawn) == joinURL)
            let png = setup.root.appendingPathComponent("qr.png")
            #expect(try await setup.cli(["event", "qr", id, "--png", png.path]).status == 0)
            #expect(try await zbar(png) == joinURL)

            // A folder with photos, a subfolder, a text file (skipped) and a file that is not a photo (refused).
            let folder = setup.root.appendingPathComponent("card")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("DCIM"), withIntermediateDirectories: true)
            var originals: [Data] = []
            for index in 0..<4 {
                let photo = try await TestImages.jpeg(width: 500 + index, height: 400)
                originals.append(photo)
                try photo.write(to: folder.appendingPathComponent(index < 2 ? "IMG_\(index).JPG" : "DCIM/IMG_\(index).jpg"))
            }
            try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            try Data("not a photo".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
            let first = try await setup.cli(["upload", "--event", id, folder.path, "--json"])
            #expect(first.status == 1, "one refused file makes the run fail, the others still go")
            let outcomes = try #require(first.json as? [[String: Any]], "\(first.output) \(first.errors)")
            #expect(outcomes.filter { $0["status"] as? String == "uploaded" }.count == 4)
            #expect(outcomes.first { ($0["file"] as? String)?.hasSuffix("broken.jpg") == true }?["status"] as? String == "refused")
            #expect(!outcomes.contains { ($0["file"] as? String)?.hasSuffix("notes.txt") == true })
            try FileManager.default.removeItem(at: folder.appendingPathComponent("broken.jpg"))
            let again = try await setup.cli(["upload", "--event", id, folder.path])
            #expect(again.status == 0 && again.output.contains("0 uploaded, 4 already there"), "\(again.output)")

            // The archive holds the photos that are ready: their renders run in the background.
            let sent = originals.count
            try await withTimeLimit(.seconds(120), "the uploaded photos' renders") {
                while try await Self.readyPhotos(setup, event: id) < sent { try await Task.sleep(for: .milliseconds(200)) }
            }
            let zip = setup.root.appendingPathComponent("party.zip")
            let download = try await setup.cli(["event", "download", id, "--output", zip.path])
            #expect(download.status == 0, "\(download.errors)")
            let archive = try Data(contentsOf: zip)
            for original in originals { #expect(archive.range(of: original) != nil) }

            let ended = try await setup.cli(["event", "end", id, "--json"])
            #expect((ended.json as? [String: Any])?["status"] as? String == "ended")
            let refused = try await setup.cli(["upload", "--event", "no-such-event", folder.path])
            #expect(refused.status == 1 && refused.errors.contains("error: "))

            #expect(try await setup.cli(["logout"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: setup.config.appendingPathComponent("disposable/credentials.json").path))
            #expect(try await setup.cli(["event", "list"]).status == 3)
            let unreachable = try await setup.cli(["login", "--server", "http://127.0.0.1:9", "--email", "a@b.c", "--password-stdin"], stdin: "x")
            #expect(unreachable.status == 4 && unreachable.errors.contains("Could not talk to the server"), "\(unreachable.errors)")
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("An upload killed halfway and run again: every photo once, nothing sent twice")
    func uploadKilledAndRunAgain() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let created = try await setup.cli(["event", "create", "--name", "Big card", "--json"])
            let id = try #require((created.json as? [String: Any])?["id"] as? String)
            let folder = setup.root.appendingPathComponent("card")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var written: [String] = []
            for index in 0..<16 {
                let file = folder.appendingPathComponent(String(format: "IMG_%04d.JPG", index))
                try await TestImages.jpeg(width: 1600 + index, height: 1200).write(to: file)
                written.append(try await Self.sha256(file))
            }
            let hashes = written
            let token = try setup.token
            @Sendable func stored() async throws -> Int {
                let answer = try await post("\(setup.base)/api/v1/events/\(id)/photos/check", json: ["sha256": hashes], token: token)
                return (answer.json["existing"] as? [String])?.count ?? 0
            }

            let upload = try ChildProcess(
                try disposableBinary(), ["upload", "--event", id, folder.path, "--concurrency", "1"],
                environment: ["XDG_CONFIG_HOME": setup.config.path])
            try await Self.kill(upload, "the first photos") { try await stored() >= 3 }
            #expect(await upload.exited() == .signal(SIGKILL))
            let before = try await stored()
            #expect(before >= 3 && before < 16, "killed halfway: \(before) of 16")

            let rerun = try await setup.cli(["upload", "--event", id, folder.path, "--json"])
            #expect(rerun.status == 0, "\(rerun.errors)")
            let outcomes = try #require(rerun.json as? [[String: Any]])
            let uploaded = outcomes.filter { $0["status"] as? String == "uploaded" }.count
            let skipped = outcomes.filter { $0["status"] as? String == "already-there" }.count
            #expect(uploaded + skipped == 16 && skipped >= before)
            #expect(try await stored() == 16)
            let stats = try await get("\(setup.base)/api/v1/events/\(id)/stats", token: token)
            #expect(stats.json["photos"] as? Int == 16, "each photo once")
        } cleanup: {
            await setup.stop()
        }
    }

    @Test("A large file goes with tus: killed halfway, the next run goes on from the server's bytes (same upload)")
    func largeFileResumes() async throws {
        let setup = try await Setup.start()
        try await withCleanup {
            try await setup.logIn()
            let created = try await setup.cli(["event", "create", "--name", "Big files", "--json"])
            let id = try #require((created.json as? [String: Any])?["id"] as? String)
            let big = setup.root.appendingPathComponent("big/PANO_0001.JPG")
            try FileManager.default.createDirectory(at: big.deletingLastPathComponent(), withIntermediateDirectories: true)
            try await TestImages.jpeg(width: 6000, height: 4000).write(to: big)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: big.path)[.size] as? Int)
            #expect(size > 8 << 20, "large enough for tus: \(size)")
            let token = try setup.token
            let store = setup.config.appendingPathComponent("disposable/uploads.json")

            let upload = try ChildProcess(
                try disposableBinary(), ["upload", "--event", id, big.path, "--piece-kb", "64"],
                environment: ["XDG_CONFIG_HOME": setup.config.path])
            // Killed once the server's file for the upload holds a megabyte (read on disk: asking the server would
            // stop the upload's requests).
            let partials = setup.root.appendingPathComponent("data/resumable-uploads").path
            try await Self.kill(upload, "a megabyte on the server") {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: partials)) ?? []
                return names.contains { name in
                    ((try? FileManager.default.attributesOfItem(atPath: "\(partials)/\(name)")[.size] as? Int) ?? 0) >= 1 << 20
                }
            }
            let uploadID = try #require(
                FileManager.default.contents(atPath: store.path).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }?
                    .values.first, "the CLI remembered its upload")
            await upload.exited()
            let before = try #require(try await Self.offset(setup.base, uploadID, token: token))
            #expect(before > 0 && before < size, "killed halfway: \(before) of \(size)")

            let rerun = try await setup.cli(["upload", "--event", id, big.path, "--json"])
            #expect(rerun.status == 0, "\(rerun.errors)")
            let outcome = try #require((rerun.json as? [[String: Any]])?.first)
            #expect(outcome["status"] as? String == "uploaded")
            // The same upload went on to the end and became the photo.
            let head = try await Self.head(setup.base, uploadID, token: token)
            #expect(head.photoID == outcome["photoId"] as? String && head.offset == size)
            let photo = try await get("\(setup.base)/api/v1/photos/\(try #require(head.photoID))", token: token)
            #expect(photo.json["sha256"] as? String == (try await Self.sha256(big)))
            #expect((try? JSONDecoder().decode([String: String].self, from: Data(contentsOf: store)))?.isEmpty == true, "forgotten when done")
        } cleanup: {
            await setup.stop()
        }
    }

    /// Kills `process` once `ready` holds, looking while it is stopped (SIGSTOP): on a busy machine it would
    /// otherwise finish between two looks.
    /// Kills `process` once `ready`: it runs in slices of 15 ms, stopped while `ready` is asked.
    static func kill(_ process: ChildProcess, _ what: String, when ready: @escaping @Sendable () async throws -> Bool) async throws {
        process.signal(SIGSTOP)
        try await withTimeLimit(.seconds(120), what) {
            while true {
                guard process.isRunning else { throw TestSetupError("it ended before \(what)") }
                if try await ready() { break }
                await process.run(milliseconds: 15)
            }
        }
        process.signal(SIGKILL)
    }

    static func head(_ base: String, _ upload: String, token: String) async throws -> (offset: Int?, photoID: String?) {
        var request = HTTPClientRequest(url: "\(base)/api/v1/uploads/\(upload)")
        request.method = .HEAD
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Tus-Resumable", value: "1.0.0")
        let answer = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (answer.headers.first(name: "Upload-Offset").flatMap(Int.init), answer.headers.first(name: "X-Photo-ID"))
    }

    static func offset(_ base: String, _ upload: String, token: String) async throws -> Int? {
        try await head(base, upload, token: token).offset
    }

    /// The terminal's half-block drawing back into a greyscale image (8 pixels a module) for zbar.
    static func pgm(fromTerminal text: String) -> Data {
        let rows = text.split(separator: "\n").filter { $0.contains("\u{1B}[30;47m") }.map { line in
            Array(line.replacingOccurrences(of: "\u{1B}[30;47m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: ""))
        }
        var modules: [[Bool]] = []
        for row in rows {
            modules.append(row.map { $0 == "█" || $0 == "▀" })
            modules.append(row.map { $0 == "█" || $0 == "▄" })
        }
        let scale = 8
        let (width, height) = ((modules.first?.count ?? 0) * scale, modules.count * scale)
        var pixels = Data("P5\n\(width) \(height)\n255\n".utf8)
        for row in modules {
            let line = row.flatMap { dark in [UInt8](repeating: dark ? 0 : 255, count: scale) }
            for _ in 0..<scale { pixels.append(contentsOf: line) }
        }
        return pixels
    }

    static func sha256(_ file: URL) async throws -> String {
        try await runTool("/usr/bin/sha256sum", [file.path]).output.split(separator: " ").first.map(String.init) ?? ""
    }
}

/// What zbar reads in an image (the first code's text).
private func zbar(_ image: URL) async throws -> String {
    let (_, output) = try await runTool("/usr/bin/zbarimg", ["--quiet", "--raw", image.path])
    return output.trimmingCharacters(in: .whitespacesAndNewlines)
}
