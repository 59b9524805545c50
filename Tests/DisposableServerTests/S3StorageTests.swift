import Foundation
import Testing

@testable import DisposableServer

/// OPS-4: the whole photo path on an S3 bucket (moto) — upload, derivatives, originals, the ZIP, deleting a
/// photo and an event — on both databases.
@Suite("Photos on S3 (OPS-4)")
struct S3StorageTests {
    @Test("Upload, render, serve, zip and delete with every byte in the bucket", arguments: TestEngine.allCases)
    func photosOnS3(engine: TestEngine) async throws {
        let bucket = try await TestS3.freshBucket(prefix: "instance-a")
        let store = try S3BlobStore(settings: bucket)
        try await TestApp.run(engine, configure: { $0.storage = .s3(bucket) }) { app in
            let organizer = try await app.userToken()
            let id = try await app.createEvent(token: organizer)["id"] as! String
            let bytes = try await TestImages.jpeg(width: 640, height: 480)
            let photo = try #require(try await app.upload(bytes, event: id, token: organizer).string("id"))
            let ready = try await app.waitUntilProcessed(photo, token: organizer)
            #expect(ready.string("status") == "ready")
            #expect(
                Set(try await store.list(prefix: "events/\(id)/", after: nil, limit: 10))
                    == Set(["original", "preview.jpg", "thumbnail.jpg"].map { "events/\(id)/\(photo)/\($0)" }))
            #expect(try await app.call(.get, "/api/v1/photos/\(photo)/original", token: organizer).body == .init(data: bytes))
            let range = try await app.call(.get, "/api/v1/photos/\(photo)/original", token: organizer, headers: [.range: "bytes=10-19"])
            #expect(range.status == .partialContent && Data(buffer: range.body) == bytes[10...19])
            #expect(try await app.call(.get, "/api/v1/photos/\(photo)/thumbnail", token: organizer).status == .ok)
            let archive = try await app.call(.get, "/api/v1/events/\(id)/archive.zip", token: organizer)
            #expect(archive.status == .ok && Data(buffer: archive.body).range(of: bytes) != nil)

            let second = try #require(
                try await app.upload(try await TestImages.jpeg(width: 641, height: 480), event: id, token: organizer).string("id"))
            _ = try await app.waitUntilProcessed(second, token: organizer)
            #expect(try await app.call(.delete, "/api/v1/photos/\(photo)", token: organizer).status == .noContent)
            try await expectEventually { try await store.list(prefix: "events/\(id)/\(photo)/", after: nil, limit: 10).isEmpty }
            #expect(try await app.call(.delete, "/api/v1/events/\(id)", token: organizer).status == .noContent)
            try await expectEventually { try await store.list(prefix: "events/", after: nil, limit: 10).isEmpty }
        }
    }

    private func expectEventually(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
        #expect(try await condition(), sourceLocation: sourceLocation)
    }
}
