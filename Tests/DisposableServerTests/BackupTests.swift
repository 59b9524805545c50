import Crypto
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// OPS-5: `disposable backup` while uploads run, then `disposable restore` into a fresh data folder — every
/// photo acknowledged before the backup began is back, byte for byte, and no row comes back without its file.
@Suite("Backup and restore (OPS-5)")
struct BackupTests {
    struct Acknowledged: Sendable {
        let id: String
        let sha256: String
        let at: ContinuousClock.Instant
    }

    @Test("Back up during a burst of uploads and a deletion; restore; everything acknowledged before is there")
    func backupWhileUploading() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let (data, backup, restored) = (
            root.appendingPathComponent("data"), root.appendingPathComponent("backup"), root.appendingPathComponent("new")
        )
        let binary = try disposableBinary()
        let (environment, port) = try await serverEnvironment(.sqlite, directory: data)
        let server = try startServer(environment.merging(["DISPOSABLE_LOG_LEVEL": "error"]) { $1 })
        let base = "http://127.0.0.1:\(port)"
        _ = try await waitForHTTP(base + "/healthz", server: server)
        _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(
            try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
        let event = try #require(try await post(base + "/api/v1/events", json: ["name": "Backed up"], token: token).json["id"] as? String)

        // Uploads keep coming, four at a time, before, during and after the backup.
        let acknowledged = NIOLockedValueBox<[Acknowledged]>([])
        let uploads = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for index in 0..<8 {
                            let photo = try await TestImages.jpeg(width: 320 + worker * 10 + index, height: 240)
                            let answer = try await upload(photo, to: "\(base)/api/v1/events/\(event)/photos", token: token)
                            guard answer.status == 201, let id = answer.json["id"] as? String else { continue }
                            let sha = SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined()
                            acknowledged.withLockedValue { $0.append(.init(id: id, sha256: sha, at: .now)) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        while acknowledged.withLockedValue({ $0.count }) < 8 { try await Task.sleep(for: .milliseconds(50)) }
        // One photo deleted just before: it must not come back.
        let deleted = try #require(acknowledged.withLockedValue { $0.first?.id })
        #expect(try await delete("\(base)/api/v1/photos/\(deleted)", token: token).status == 204)
        let backupStarted = ContinuousClock.now
        let backedUp = try await runTool(binary, ["backup", "--data-dir", data.path, "--to", backup.path])
        #expect(backedUp.status == 0, "\(backedUp.output)")
        try await uploads.value
        server.signal(SIGTERM)
        await server.exited()
        #expect(FileManager.default.fileExists(atPath: backup.appendingPathComponent("backup.json").path))

        // Wipe: a new data folder, restored from the backup alone.
        try FileManager.default.removeItem(at: data)
        let restore = try await runTool(binary, ["restore", "--data-dir", restored.path, "--from", backup.path])
        #expect(restore.status == 0, "\(restore.output)")
        // Restoring twice into the same folder is refused, not merged.
        #expect(try await runTool(binary, ["restore", "--data-dir", restored.path, "--from", backup.path]).status != 0)

        let (environment2, port2) = try await serverEnvironment(.sqlite, directory: restored)
        let second = try startServer(environment2.merging(["DISPOSABLE_LOG_LEVEL": "error"]) { $1 })
        defer { second.signal(SIGTERM) }
        let base2 = "http://127.0.0.1:\(port2)"
        _ = try await waitForHTTP(base2 + "/healthz", server: second)
        let before = acknowledged.withLockedValue { $0.filter { $0.at < backupStarted && $0.id != deleted } }
        // A photo still being rendered at the backup is listed once the restored server has rendered it.
        var listed: [String: String] = [:]  // id → sha256
        let deadline = Date() + 90
        repeat {
            let items = try await get("\(base2)/api/v1/events/\(event)/photos?limit=100", token: token).json["items"] as? [[String: Any]] ?? []
            listed = Dictionary(items.compactMap { item in (item["id"] as? String).map { ($0, item["sha256"] as? String ?? "") } }) { $1 }
            if before.allSatisfy({ listed[$0.id] != nil }) { break }
            try await Task.sleep(for: .milliseconds(200))
        } while Date() < deadline
        let listedIDs = Set(listed.keys)
        #expect(!before.isEmpty)
        for photo in before {
            #expect(listedIDs.contains(photo.id), "acknowledged before the backup, missing after the restore")
            let original = try await get("\(base2)/api/v1/photos/\(photo.id)/original", token: token)
            #expect(SHA256.hash(data: original.body).map { String(format: "%02x", $0) }.joined() == photo.sha256)
        }
        #expect(!listedIDs.contains(deleted))
        // No row without its file: every photo listed opens, whole.
        for (id, sha256) in listed {
            let original = try await get("\(base2)/api/v1/photos/\(id)/original", token: token)
            #expect(original.status == 200)
            #expect(SHA256.hash(data: original.body).map { String(format: "%02x", $0) }.joined() == sha256)
        }
    }
}
