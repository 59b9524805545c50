import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// REL-3 for storage: the bucket out of reach — uploads get 503 at once, keep nothing and use no
/// shot; reads say so too; when it is back, everything works again with nothing to repair.
@Suite("Storage outage (REL-3, S3)")
struct StorageOutageTests {
    /// A TCP forwarder in front of the S3 endpoint: stopped, the bucket is unreachable; started again on the
    /// same port, it is back.
    final class Door: Sendable {
        let port: Int
        let target: Int
        private let process = NIOLockedValueBox<ChildProcess?>(nil)

        init(target: Int) throws {
            port = try freePort()
            self.target = target
        }

        func open() async throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("tools/tcp_forward.py").path
            let child = try ChildProcess("/usr/bin/env", ["python3", script, String(port), String(target)])
            process.withLockedValue { $0 = child }
            let deadline = ContinuousClock.now + .seconds(20)
            while (try? RawConnection(port: port)) == nil {
                guard ContinuousClock.now < deadline else { throw TestSetupError("the forwarder did not start") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        func close() async {
            guard
                let child = process.withLockedValue({ current in
                    defer { current = nil }; return current
                })
            else { return }
            child.signal(SIGKILL)
            await child.exited()
        }
    }

    @Test("Bucket unreachable: uploads 503 at once and keep nothing; back again, all works")
    func outage() async throws {
        var bucket = try await TestS3.freshBucket()
        let target = try #require(URL(string: bucket.endpoint)?.port)
        let door = try Door(target: target)
        try await door.open()
        bucket.endpoint = "http://127.0.0.1:\(door.port)"
        let settings = bucket
        try await TestApp.run(.sqlite, configure: { $0.storage = .s3(settings) }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let guest = try await app.guestToken(code: event["code"] as! String, name: "Ana")
            let first = try #require(try await app.upload(try await TestImages.jpeg(width: 300, height: 200), event: id, token: guest).string("id"))
            _ = try await app.waitUntilProcessed(first, token: guest)

            let refusedPhoto = try await TestImages.jpeg(width: 301, height: 200)  // made before the clock starts: vips is slow under load
            await door.close()
            let started = ContinuousClock.now
            let refused = try await app.upload(refusedPhoto, event: id, token: guest)
            #expect(refused.expectProblem(.serviceUnavailable).contains("storage"))
            #expect(refused.string("type")?.hasSuffix("storage-unavailable") == true)
            // 30 s: a full run on two cores took this refusal to 15.5–20 s (the upload and its 503 wait for CPU); retries
            // that wait for the bucket would take minutes.
            #expect(ContinuousClock.now - started < .seconds(30), "the refusal comes at once, not after long retries")
            let me = try await app.call(.get, "/api/v1/me", token: guest)
            #expect((me["guest"] as? [String: Any])?["shotsUsed"] as? Int == 1, "a refused upload uses no shot")
            let gallery = try await app.call(.get, "/api/v1/events/\(id)/photos", token: organizer)
            #expect((gallery["items"] as? [[String: Any]])?.count == 1)
            // Reads of what the bucket holds say so too (the thumbnail may still be in memory: the original is not).
            try await app.call(.get, "/api/v1/photos/\(first)/original", token: organizer).expectProblem(.serviceUnavailable)
            let health = try await app.call(.get, "/healthz")
            #expect(health.status == .serviceUnavailable)

            try await door.open()
            let second = try await app.upload(try await TestImages.jpeg(width: 301, height: 200), event: id, token: guest)
            #expect(second.status == .created)
            _ = try await app.waitUntilProcessed(try #require(second.string("id")), token: guest)
            #expect(try await app.call(.get, "/api/v1/photos/\(first)/original", token: organizer).status == .ok)
            let stored = try await S3BlobStore(settings: settings).list(prefix: "events/", after: nil, limit: 100)
            #expect(stored.count == 6, "two photos, three objects each: \(stored)")
            #expect(app.stagedFiles().isEmpty, "nothing left in staging")
        }
        await door.close()
    }
}
