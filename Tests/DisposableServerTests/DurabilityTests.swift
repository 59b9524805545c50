import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// "An upload that got a 2xx survives kill -9" — the real binary, killed mid-burst, then restarted; on the
/// embedded stack, on PostgreSQL, and on the scale-out stack (PostgreSQL + an S3 bucket, REL-1).
@Suite("Durability (UP-3 server side, kill -9)", .serialized)
struct DurabilityTests {
    enum Stack: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres, postgresAndS3
        var testDescription: String { rawValue }
    }

    @Test("Every acknowledged upload is listed and byte-identical after kill -9; nothing half-written remains", arguments: Stack.allCases)
    func killDuringUploads(stack: Stack) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var (environment, port) = try await serverEnvironment(stack == .sqlite ? .sqlite : .postgres, directory: directory)
        var bucket: S3Settings? = nil
        if stack == .postgresAndS3 {
            let settings = try await TestS3.freshBucket()
            environment.merge(TestS3.environment(settings)) { $1 }
            bucket = settings
        }
        let base = "http://127.0.0.1:\(port)"
        var server = try startServer(environment)
        defer { server.signal(SIGKILL) }
        _ = try await waitForHTTP(base + "/healthz", server: server)

        // setup: an organizer and a live event
        _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let session = try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(session.json["token"] as? String)
        let event = try await post(base + "/api/v1/events", json: ["name": "Kill test"], token: token)
        let eventID = try #require(event.json["id"] as? String)
        var acknowledged: [String: Data] = [:]

        // REL-1: three rounds, each 50 concurrent uploads with the server killed at a random moment among them.
        for round in 0..<3 {
            var made: [Data] = []
            for index in 0..<50 { made.append(try await TestImages.jpeg(width: 300 + round * 50 + index, height: 200)) }
            let photos = made
            let victim = server
            let answered = await withTaskGroup(of: (Int, String?).self) { group in
                for (index, photo) in photos.enumerated() {
                    group.addTask {
                        let response = try? await upload(photo, to: "\(base)/api/v1/events/\(eventID)/photos", token: token)
                        return (index, response.flatMap { (200..<300).contains($0.status) ? $0.json["id"] as? String : nil })
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 100...800)))
                    victim.signal(SIGKILL)
                    return (-1, nil)
                }
                return await group.reduce(into: [Int: String]()) { if let id = $1.1 { $0[$1.0] = id } }
            }
            #expect(await server.exited() == .signal(SIGKILL))
            for (index, id) in answered { acknowledged[id] = photos[index] }

            // validate: restart and look
            server = try startServer(environment)
            _ = try await waitForHTTP(base + "/healthz", server: server)
            for (id, bytes) in acknowledged {
                let original = try await get("\(base)/api/v1/photos/\(id)/original", token: token)
                #expect(original.status == 200)
                #expect(original.body == bytes, "round \(round): photo \(id) must come back byte for byte")
            }
            // Pending processing completes, and every stored photo is complete.
            let deadline = Date() + 60
            var listed: [[String: Any]] = []
            repeat {
                listed = []
                var cursor: String? = nil
                repeat {
                    let page = try await get(
                        "\(base)/api/v1/events/\(eventID)/photos?mine=true&limit=100" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                    listed += page.json["items"] as? [[String: Any]] ?? []
                    cursor = page.json["nextCursor"] as? String
                } while cursor != nil
                // Shown with its thumbnail first, a photo is complete once its preview is made too.
                if listed.allSatisfy({ $0["status"] as? String != "processing" && $0["previewPending"] == nil }) { break }
                try await Task.sleep(for: .milliseconds(200))
            } while Date() < deadline
            #expect(Set(acknowledged.keys).isSubset(of: Set(listed.compactMap { $0["id"] as? String })))
            #expect(listed.allSatisfy { $0["status"] as? String == "ready" }, "\(listed.map { $0["status"] ?? "" })")
            #expect(listed.allSatisfy { $0["previewPending"] == nil }, "every preview made after the restart")
            let stored: Set<String>
            let staging: String
            if let bucket {
                // Objects of uploads that never got a row are removed at restart (pending writes): wait for it.
                let store = try S3BlobStore(settings: bucket)
                var keys: [String] = []
                let settled = Date() + 30
                repeat {
                    keys = try await store.list(prefix: "events/\(eventID)/", after: nil, limit: 10_000)
                    if Set(keys.map { $0.split(separator: "/")[2] }).count == listed.count { break }
                    try await Task.sleep(for: .milliseconds(200))
                } while Date() < settled
                stored = Set(keys.map { String($0.split(separator: "/")[2]) })
                staging = directory.appendingPathComponent("staging").path
            } else {
                stored = Set(
                    (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("media/events/\(eventID)").path)) ?? [])
                staging = directory.appendingPathComponent("media/staging").path
            }
            #expect(stored == Set(listed.compactMap { $0["id"] as? String }), "no file without its row, no row without its file")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).isEmpty)
        }
    }

    @Test(
        "A photo shown by its first look when the server is killed is listed after the restart, and gets the server's renders",
        arguments: [Stack.sqlite, .postgresAndS3])
    func killBetweenFirstLookAndRenders(stack: Stack) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var (environment, port) = try await serverEnvironment(stack == .sqlite ? .sqlite : .postgres, directory: directory)
        if stack == .postgresAndS3 { environment.merge(TestS3.environment(try await TestS3.freshBucket())) { $1 } }
        let base = "http://127.0.0.1:\(port)"
        // The server's renders wait 15 seconds: the kill comes between the acknowledgement and them.
        environment["DISPOSABLE_TEST_FIRST_LOOK_RENDER_DELAY"] = "15"
        var server = try startServer(environment)
        defer { server.signal(SIGKILL) }
        _ = try await waitForHTTP(base + "/healthz", server: server)
        let (token, eventID) = try await Self.organizerWithEvent(at: base)
        let picture = try await TestImages.structured(width: 1600, height: 1200)
        let form = photoForm(picture, firstLook: try await TestImages.firstLook(of: picture))
        let sent = try await upload(form.body, to: "\(base)/api/v1/events/\(eventID)/photos", token: token, contentType: form.contentType)
        #expect(sent.status == 201 && sent.json["firstLook"] as? Bool == true, "\(sent.text)")
        let id = try #require(sent.json["id"] as? String)
        server.signal(SIGKILL)
        #expect(await server.exited() == .signal(SIGKILL))

        environment["DISPOSABLE_TEST_FIRST_LOOK_RENDER_DELAY"] = nil
        server = try startServer(environment)
        _ = try await waitForHTTP(base + "/healthz", server: server)
        let listed = try await get("\(base)/api/v1/events/\(eventID)/photos", token: token).json["items"] as? [[String: Any]]
        #expect(listed?.map { $0["id"] as? String } == [id])
        #expect(try await get("\(base)/api/v1/photos/\(id)/thumbnail", token: token).status == 200)
        #expect(try await get("\(base)/api/v1/photos/\(id)/original", token: token).body == picture)
        // The renders the kill interrupted are made after the restart: the server's preview replaces the first look.
        let deadline = Date() + 90
        var photo: [String: Any] = [:]
        repeat {
            photo = try await get("\(base)/api/v1/photos/\(id)", token: token).json
            if photo["previewPending"] == nil { break }
            try await Task.sleep(for: .milliseconds(200))
        } while Date() < deadline
        #expect(photo["status"] as? String == "ready" && photo["previewPending"] == nil && photo["firstLook"] == nil, "\(photo)")
        let preview = try await get("\(base)/api/v1/photos/\(id)/preview", token: token)
        #expect(preview.status == 200 && TestImages.jpegSize(preview.body).map { [$0.width, $0.height] } == [1600, 1200])
    }

    /// An organizer's token and a new event of hers, on the server at `base`.
    static func organizerWithEvent(at base: String) async throws -> (token: String, eventID: String) {
        _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(
            try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
        let eventID = try #require(try await post(base + "/api/v1/events", json: ["name": "Kill test"], token: token).json["id"] as? String)
        return (token, eventID)
    }
}
