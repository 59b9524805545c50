import Crypto
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Turning encryption on for an instance that has photos, through the real binary: old photos stay readable, new
/// ones are sealed, `disposable storage encrypt` seals the rest (killed midway, every file is whole; run again, it
/// finishes the job); the wrong key or none refuses to start; a backup restores under the same key.
@Suite("Encryption at rest: turning it on, the key, backups")
struct EncryptionCommandTests {
    @Test("Old photos readable, new ones sealed; storage encrypt seals the rest, killed and resumed; wrong or no key refused; backup and restore")
    func upgradeAnInstance() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-sealing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let binary = try disposableBinary()
        let keyFile = root.appendingPathComponent("storage.key")
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        let otherKey = root.appendingPathComponent("other.key")
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: otherKey)
        let (environment, port) = try await serverEnvironment(.sqlite, directory: data)
        let base = "http://127.0.0.1:\(port)"
        let media = data.appendingPathComponent("media")

        // 1. Without a key: two photos, stored as they are.
        var server = try startServer(environment)
        _ = try await waitForHTTP(base + "/healthz", server: server)
        _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(
            try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
        let event = try #require(try await post(base + "/api/v1/events", json: ["name": "Sealed"], token: token).json["id"] as? String)
        var photos: [String: Data] = [:]
        func shoot(_ width: Int) async throws {
            let jpeg = try await TestImages.jpeg(width: width, height: 300)
            let answer = try await upload(jpeg, to: "\(base)/api/v1/events/\(event)/photos", token: token)
            photos[try #require(answer.json["id"] as? String, "\(answer.text)")] = jpeg
        }
        try await shoot(400)
        try await shoot(410)
        try await Self.waitForRenders(base, token: token, ids: Array(photos.keys))
        server.signal(SIGTERM)
        await server.exited()
        #expect(Self.readableJPEGs(in: media) >= 4, "photos stored before encryption are plain")

        // 2. With the key: the old ones still open, a new one is sealed.
        let sealed = environment.merging(["DISPOSABLE_STORAGE_KEY_FILE": keyFile.path]) { $1 }
        server = try startServer(sealed)
        _ = try await waitForHTTP(base + "/healthz", server: server)
        try await shoot(420)
        try await Self.waitForRenders(base, token: token, ids: Array(photos.keys))
        for (id, jpeg) in photos { #expect(try await get("\(base)/api/v1/photos/\(id)/original", token: token).body == jpeg) }
        server.signal(SIGTERM)
        await server.exited()

        // 3. storage encrypt, killed midway: every file is whole (plain or sealed) at that moment; run again, it
        // seals the rest and skips what was done; a third run has nothing left to do.
        let extras = try Self.plainFiles(300, in: media.appendingPathComponent("extra"))
        let encrypt = ["storage", "encrypt", "--data-dir", data.path, "--storage-key-file", keyFile.path]
        let interrupted = try ChildProcess(binary, encrypt)
        await Self.kill(interrupted, onceSealed: 10, in: media.appendingPathComponent("extra"))
        _ = await interrupted.exited()
        let sealedAfterKill = Self.sealedFiles(in: media.appendingPathComponent("extra"))
        #expect(sealedAfterKill >= 10 && sealedAfterKill < extras.count, "killed after \(sealedAfterKill) of \(extras.count)")
        let store = SealedBlobStore(inner: try LocalBlobStore(root: media.path), storageKey: try StorageKey(file: keyFile.path))
        for (key, bytes) in extras {
            #expect(try await store.contents(key: key).map { Data($0.readableBytesView) } == bytes, "\(key)")
        }
        let first = try await runTool("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>&1", binary] + encrypt)
        #expect(first.status == 0, "\(first.output)")
        let total = extras.count + 9
        #expect(first.output.contains("Done: \(total) files encrypted") && !first.output.contains("(0 now"), "\(first.output)")
        #expect(!first.output.contains("can be read by other users"), "\(first.output)")
        // A key file others may read: said at once (the run goes on).
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
        let again = try await runTool("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>&1", binary] + encrypt)
        #expect(again.output.contains("0 now, \(total) before"), "\(again.output)")
        #expect(again.output.contains("can be read by other users of this machine (mode 644)"), "\(again.output)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        #expect(Self.readableJPEGs(in: media) == 0 && Self.sealedFiles(in: media.appendingPathComponent("extra")) == extras.count)
        for (key, bytes) in extras {
            #expect(try await store.contents(key: key).map { Data($0.readableBytesView) } == bytes, "\(key)")
        }
        try FileManager.default.removeItem(at: media.appendingPathComponent("extra"))

        // 4. The wrong key, or none: the server does not start, and says why.
        for (environment, words) in [
            (environment.merging(["DISPOSABLE_STORAGE_KEY_FILE": otherKey.path]) { $1 }, "not the one"),
            (environment, "encrypted at rest"),
        ] {
            let refused = try startServer(environment)
            let ending = await refused.exited()
            #expect(ending != .exit(0) && refused.logTail.contains(words), "\(refused.logTail)")
        }

        // 5. A backup holds them as stored; restored and started with the same key, every photo is whole.
        let backup = root.appendingPathComponent("backup")
        #expect(try await runTool(binary, ["backup", "--data-dir", data.path, "--to", backup.path]).status == 0)
        #expect(Self.readableJPEGs(in: backup.appendingPathComponent("media")) == 0)
        let restored = root.appendingPathComponent("restored")
        #expect(try await runTool(binary, ["restore", "--data-dir", restored.path, "--from", backup.path]).status == 0)
        let (environment2, port2) = try await serverEnvironment(.sqlite, directory: restored)
        server = try startServer(environment2.merging(["DISPOSABLE_STORAGE_KEY_FILE": keyFile.path]) { $1 })
        defer { server.signal(SIGTERM) }
        _ = try await waitForHTTP("http://127.0.0.1:\(port2)/healthz", server: server)
        for (id, jpeg) in photos {
            #expect(try await get("http://127.0.0.1:\(port2)/api/v1/photos/\(id)/original", token: token).body == jpeg)
        }
    }

    /// `count` files of 64 KB written as an instance without a key would have stored them; their keys and bytes.
    static func plainFiles(_ count: Int, in folder: URL) throws -> [String: Data] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let block = Data((0..<65_536).map { _ in UInt8.random(in: 0...255) })
        var files: [String: Data] = [:]
        for index in 0..<count {
            let bytes = Data("file \(index) ".utf8) + block
            try bytes.write(to: folder.appendingPathComponent("\(index)"))
            files["\(folder.lastPathComponent)/\(index)"] = bytes
        }
        return files
    }

    /// Kills `process` once the `count`th file of `folder`, in the order the command takes them, is sealed. A
    /// thread of its own looks at that one file every 0.1 ms: on a memory file system the whole folder is sealed in
    /// tens of milliseconds, and the test run's pool may be busy for longer.
    static func kill(_ process: ChildProcess, onceSealed count: Int, in folder: URL) async {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        let watched = folder.appendingPathComponent(names[count - 1]).path
        await withCheckedContinuation { (killed: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var looks = 0
                while !isSealed(watched) && looks < 600_000 {
                    usleep(100)
                    looks += 1
                }
                process.signal(SIGKILL)
                killed.resume()
            }
        }
    }

    /// Files directly in `folder` that begin as sealed blobs do.
    static func sealedFiles(in folder: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { isSealed(folder.path + "/" + $0) }.count
    }

    static func isSealed(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return SealedBlob.isSealed(Array((try? handle.read(upToCount: 8)) ?? Data()))
    }

    /// Files under `folder` that a JPEG reader would take for one.
    static func readableJPEGs(in folder: URL) -> Int {
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return files.filter { !$0.hasPrefix("staging") }.filter {
            (FileManager.default.contents(atPath: folder.path + "/" + $0) ?? Data()).starts(with: [0xFF, 0xD8, 0xFF])
        }.count
    }

    static func waitForRenders(_ base: String, token: String, ids: [String]) async throws {
        for id in ids {
            for _ in 0..<600 {
                let photo = try await get("\(base)/api/v1/photos/\(id)", token: token).json
                if photo["status"] as? String == "ready" && photo["previewPending"] as? Bool != true { break }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
