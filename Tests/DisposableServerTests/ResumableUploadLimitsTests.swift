import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The second review's tus findings: uploads left one byte short cannot hold more than the
/// quota, nor the server's disk; the expiry runs from the creation; the cap of 20 under way holds under a burst.
@Suite("Resumable uploads: quotas and caps")
struct ResumableUploadLimitsTests {
    struct Tus {
        let app: TestApp

        func send(_ method: HTTPRequest.Method, _ path: String, token: String, _ fields: [String: String] = [:], body: Data? = nil) async throws
            -> APIResponse
        {
            var headers: HTTPFields = [.init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(token)"]
            for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
            return try await app.send(path, method: method, headers: headers, body: body.map { ByteBuffer(data: $0) })
        }

        func create(_ length: Int, target: String, token: String) async throws -> APIResponse {
            try await send(
                .post, "/api/v1/uploads", token: token,
                ["Upload-Length": String(length), "Upload-Metadata": ResumableUploadTests.metadata(["target": target, "source": "camera"])])
        }
    }

    @Test(
        "Announced lengths of unfinished uploads count against the quota; progress moves the expiry, within a day of the creation; a stall of a quarter hour ends it",
        arguments: TestEngine.allCases)
    func announcedBytesCount(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            try await app.services.accounts.settings.setDefaultQuota(3_000_000)
            let tus = Tus(app: app)
            let organizer = try await app.userToken(email: "olivia@example.com")
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 50])
            let target = "event:" + (try #require(event["id"] as? String))
            let guest = try await app.guestToken(code: try #require(event["code"] as? String))

            let first = try await tus.create(1_400_000, target: target, token: guest)
            #expect(first.status == .created, "\(first.text)")
            let location = try #require(first.headers[.location])
            let expires = try #require(first.headers[.init("Upload-Expires")!])
            #expect(try await tus.create(1_400_000, target: target, token: guest).status == .created)
            // 2.8 MB announced on a 3 MB quota: a third is refused before a byte is sent.
            let third = try await tus.create(1_400_000, target: target, token: guest)
            #expect(third.expectProblem(.forbidden).contains("storage is full"))
            #expect(third.string("type")?.hasSuffix("quota-exceeded") == true)

            // A first byte, then a byte every ten minutes: each moves the expiry along, never past a day from the creation.
            let start = try await tus.send(
                .patch, location, token: guest, ["Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"], body: Data([0x41]))
            #expect(start.status == .noContent, "\(start.text)")
            var offset = 1
            while offset < 145 {
                app.clock.advance(by: 600)
                let more = try await tus.send(
                    .patch, location, token: guest, ["Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream"],
                    body: Data([0x41]))
                guard more.status == .noContent else { break }
                if offset == 1 { #expect(more.headers[.init("Upload-Expires")!] != expires) }
                offset += 1
            }
            // 24 hours after its creation it is gone, however many bytes kept coming (143 PATCHes, ten minutes apart).
            #expect(offset == 144, "\(offset)")
            #expect(try await tus.send(.head, location, token: guest).status == .notFound)

            // One that stops receiving is given up a quarter of an hour after its last bytes.
            let stalled = try #require(try await tus.create(1000, target: target, token: guest).headers[.location])
            let begun = try await tus.send(
                .patch, stalled, token: guest, ["Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"], body: Data([0x41]))
            #expect(begun.status == .noContent)
            app.clock.advance(by: ResumableUploadService.stallLimit - 60)
            #expect(try await tus.send(.head, stalled, token: guest).status == .ok)
            app.clock.advance(by: 61)
            #expect(try await tus.send(.head, stalled, token: guest).status == .notFound)
        }
    }

    @Test("30 parallel creations by one guest leave exactly 20 under way", arguments: TestEngine.allCases)
    func capHoldsUnderABurst(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let tus = Tus(app: app)
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 50])
            let target = "event:" + (try #require(event["id"] as? String))
            let guest = try await app.guestToken(code: try #require(event["code"] as? String))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<30 { group.addTask { try await tus.create(1000, target: target, token: guest).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 20, "\(statuses)")
            #expect(statuses.filter { $0 == .forbidden }.count == 10, "\(statuses)")
        }
    }
}
