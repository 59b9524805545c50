import AsyncHTTPClient
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

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

    @Test("With a public endpoint, phones fetch thumbnails and previews from the bucket by presigned links")
    func bucketLinks() async throws {
        var bucket = try await TestS3.freshBucket(prefix: "shared")
        bucket.publicEndpoint = bucket.endpoint
        let settings = bucket
        try await TestApp.run(.sqlite, configure: { $0.storage = .s3(settings) }) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let photo = try #require(try await app.upload(try await TestImages.jpeg(), event: id, token: organizer).string("id"))
            let ready = try await app.waitUntilProcessed(photo, token: organizer)
            let urls = try #require(ready["urls"] as? [String: String])
            for (kind, url) in [("thumbnail", urls["thumbnail"]), ("preview", urls["preview"])] {
                let link = try #require(url)
                #expect(link.hasPrefix("\(settings.endpoint)/\(settings.bucket)/shared/events/\(id)/\(photo)/"), "\(link)")
                #expect(link.contains("X-Amz-Signature=") && link.contains("X-Amz-Expires="))
                // Straight from the bucket, no session: the same bytes the instance serves.
                let direct = try await HTTPClient.shared.execute(HTTPClientRequest(url: link), timeout: .seconds(30))
                #expect(direct.status == .ok)
                let bytes = try await direct.body.collect(upTo: 16 << 20)
                #expect(bytes == (try await app.call(.get, "/api/v1/photos/\(photo)/\(kind)", token: organizer)).body)
            }
            // The same links for the whole window (browsers keep them cached), and pages may show them.
            let again = try await app.call(.get, "/api/v1/photos/\(photo)", token: organizer)
            #expect(again["urls"] as? [String: String] == urls)
            let page = try await app.call(.get, "/e/\(event["code"] as! String)", token: organizer)
            #expect(page.headers[.contentSecurityPolicy]?.contains("img-src 'self' data: blob: \(settings.endpoint)") == true)
        }
    }
}
