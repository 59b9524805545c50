import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// REL-2: the media folder on a small filesystem (a 4 MB tmpfs) that fills up.
@Suite("Full disk (REL-2)")
struct FullDiskTests {
    /// Mounting needs root (as on CI and the dev machine); elsewhere the suite says why it did not run.
    static func canMount() async -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mount-probe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard (try? await runTool("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", directory.path]).status) == 0 else { return false }
        _ = try? await runTool("/usr/bin/umount", [directory.path])
        return true
    }

    @Test(
        "Uploads get 507 and leave nothing partial; reads, deletes and retention work; uploads resume once space is freed",
        .enabled("needs permission to mount a small tmpfs") { await canMount() })
    func fullDisk() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("full-disk-\(UUID().uuidString)")
        let media = data.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        #expect(try await runTool("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", media.path]).status == 0)
        try await withCleanup {
            try await TestApp.run(.sqlite, configure: { $0.dataDirectory = data.path }) { app in
                let f = try await UploadTests.fixture(app, ["shotsPerGuest": 100])
                var accepted: [(id: String, bytes: Data)] = []
                var refusal: APIResponse?
                for index in 0..<40 {
                    let image = try await TestImages.jpeg(width: 900 + index, height: 700)  // ≈ 500 KB of noise
                    let response = try await app.upload(image, event: f.event, token: f.guest)
                    if response.status == .created {
                        accepted.append((try #require(response.string("id")), image))
                    } else {
                        refusal = response
                        break
                    }
                }
                let full = try #require(refusal, "4 MB never filled up")
                #expect(full.expectProblem(.init(code: 507)).contains("storage is full"))
                #expect(accepted.count >= 3, "some photos fit before the disk filled")
                let staging = try FileManager.default.contentsOfDirectory(atPath: media.appendingPathComponent("staging").path)
                #expect(staging.isEmpty, "a partial upload was left behind: \(staging)")

                // Reads still work, and every acknowledged photo is whole.
                for photo in accepted {
                    let original = try await app.call(.get, "/api/v1/photos/\(photo.id)/original", token: f.guest)
                    #expect(original.status == .ok)
                    #expect(Data(buffer: original.body) == photo.bytes)
                }
                let mine = try await app.call(.get, "/api/v1/events/\(f.event)/photos?mine=true&limit=100", token: f.guest)
                #expect((mine["items"] as? [Any])?.count == accepted.count)

                // Deletes work and free space; uploads succeed again, and photos left waiting for room get their derivatives.
                for photo in accepted.prefix(accepted.count / 2 + 1) {
                    #expect(try await app.call(.delete, "/api/v1/photos/\(photo.id)", token: f.guest).status == .noContent)
                }
                app.clock.advance(by: 61)  // the workers retry a full-disk job after a minute
                let again = try await app.upload(try await TestImages.jpeg(width: 640, height: 480), event: f.event, token: f.guest)
                #expect(again.status == .created, "\(again.text)")
                for photo in accepted.dropFirst(accepted.count / 2 + 1) {
                    let processed = try await app.waitUntilProcessed(photo.id, token: f.guest)
                    #expect(processed.string("status") == "ready", "an acknowledged photo must never fail for lack of room")
                }

                // The retention sweeper still works on a full disk: fill it again, then let the event expire.
                for index in 0..<40 {
                    let response = try await app.upload(try await TestImages.jpeg(width: 950 + index, height: 700), event: f.event, token: f.guest)
                    if response.status.code == 507 { break }
                }
                app.clock.advance(by: 8 * 86_400 + app.services.configuration.retention + 60)
                #expect(try await app.services.retention.sweep() == 1)
                // (A render that was running may leave an empty folder behind; no file may remain once it has seen the
                // photo gone and removed what it wrote.)
                func files() -> [URL] {
                    FileManager.default.enumerator(at: media.appendingPathComponent("events"), includingPropertiesForKeys: [.isRegularFileKey])?
                        .compactMap { $0 as? URL }.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true } ?? []
                }
                let deadline = ContinuousClock.now + .seconds(60)
                while !files().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
                #expect(files().isEmpty, "the expired event's files are gone: \(files())")
            }
        } cleanup: {
            _ = try? await runTool("/usr/bin/umount", ["-l", media.path])
            try? FileManager.default.removeItem(at: data)
        }
    }
}
