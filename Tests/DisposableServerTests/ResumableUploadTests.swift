import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import DisposableFeatures
@testable import DisposableServer

/// UP-4: tus 1.0 at /api/v1/uploads — every status code by raw requests, the held shot, expiry, the lock a HEAD
/// releases, and the real Python client `tuspy` killed at random points and resumed.
@Suite("Resumable uploads (tus, UP-4)")
struct ResumableUploadTests {
    static func metadata(_ values: [String: String]) -> String {
        values.sorted { $0.key < $1.key }.map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }.joined(separator: ",")
    }

    static func digest(_ data: Data, sha256: Bool = false) -> String {
        let bytes: [UInt8] = sha256 ? Array(SHA256.hash(data: data)) : Array(Insecure.SHA1.hash(data: data))
        return (sha256 ? "sha256 " : "sha1 ") + Data(bytes).base64EncodedString()
    }

    @Test(
        "Every status code: options, create, offsets, checksums, lengths, termination; the finished upload is a photo", arguments: TestEngine.allCases
    )
    func protocolAnswers(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 2])
            let eventID = try #require(event["id"] as? String)
            let guest = try await app.guestToken(code: try #require(event["code"] as? String))
            let photo = try await TestImages.jpeg(width: 800, height: 600)
            func tus(
                _ method: HTTPRequest.Method, _ path: String, token: String? = nil, _ fields: [String: String] = [:], body: Data? = nil
            ) async throws -> APIResponse {
                var headers: HTTPFields = [.init("Tus-Resumable")!: "1.0.0"]
                for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
                if let token { headers[.authorization] = "Bearer \(token)" }
                return try await app.send(path, method: method, headers: headers, body: body.map { ByteBuffer(data: $0) })
            }
            let create = ["Upload-Length": String(photo.count), "Upload-Metadata": Self.metadata(["event": eventID, "source": "camera"])]

            let options = try await tus(.options, "/api/v1/uploads")
            #expect(options.status == .noContent && options.headers[.init("Tus-Version")!] == "1.0.0")
            #expect(options.headers[.init("Tus-Extension")!]?.contains("checksum") == true)
            #expect(options.headers[.init("Tus-Checksum-Algorithm")!] == "sha1,sha256")

            try await tus(.post, "/api/v1/uploads", create).expectProblem(.unauthorized)
            try await tus(.post, "/api/v1/uploads", token: guest, ["Tus-Resumable": "0.2.2"].merging(create) { $1 })
                .expectProblem(.preconditionFailed)
            try await tus(.post, "/api/v1/uploads", token: guest, ["Upload-Metadata": create["Upload-Metadata"]!]).expectProblem(.badRequest)
            try await tus(.post, "/api/v1/uploads", token: guest, ["Upload-Length": "10", "Upload-Metadata": "event ***"])
                .expectProblem(.badRequest)
            try await tus(.post, "/api/v1/uploads", token: guest, ["Upload-Length": "10"]).expectProblem(.unprocessableContent)
            try await tus(.post, "/api/v1/uploads", token: guest, ["Upload-Length": "999999999999", "Upload-Metadata": create["Upload-Metadata"]!])
                .expectProblem(.contentTooLarge)
            try await tus(.post, "/api/v1/uploads", token: guest, ["Upload-Length": "10", "Upload-Metadata": Self.metadata(["event": "nope"])])
                .expectProblem(.notFound)

            // Created; the guest's shot is held from now on.
            let created = try await tus(.post, "/api/v1/uploads", token: guest, create)
            #expect(created.status == .created && created.headers[.init("Upload-Offset")!] == "0", "\(created.text)")
            let location = try #require(created.headers[.location])
            #expect(created.headers[.init("Upload-Expires")!]?.hasSuffix(" GMT") == true)
            #expect(try await app.call(.get, "/api/v1/me", token: guest)["guest"].flatMap { ($0 as? [String: Any])?["shotsLeft"] as? Int } == 1)

            let first = photo.prefix(1000)
            let stream = "application/offset+octet-stream"
            try await tus(.patch, location, token: guest, ["Upload-Offset": "0", "Content-Type": "application/octet-stream"], body: first)
                .expectProblem(.unsupportedMediaType)
            try await tus(.patch, location, token: guest, ["Content-Type": stream], body: first).expectProblem(.badRequest)
            try await tus(.patch, location, token: guest, ["Upload-Offset": "5", "Content-Type": stream], body: first).expectProblem(.conflict)
            try await tus(.patch, location, token: organizer, ["Upload-Offset": "0", "Content-Type": stream], body: first)
                .expectProblem(.notFound)
            let mismatch = try await tus(
                .patch, location, token: guest, ["Upload-Offset": "0", "Content-Type": stream, "Upload-Checksum": Self.digest(Data("x".utf8))],
                body: first)
            #expect(mismatch.status.code == 460 && mismatch.headers[.contentType] == "application/problem+json")
            try await tus(.patch, location, token: guest, ["Upload-Offset": "0", "Content-Type": stream, "Upload-Checksum": "md5 AAAA"], body: first)
                .expectProblem(.badRequest)
            let head = try await tus(.head, location, token: guest)
            #expect(head.status == .ok && head.headers[.init("Upload-Offset")!] == "0", "nothing kept of a mismatch")
            #expect(head.headers[.init("Upload-Length")!] == String(photo.count) && head.headers[.cacheControl] == "no-store")

            let sent = try await tus(
                .patch, location, token: guest, ["Upload-Offset": "0", "Content-Type": stream, "Upload-Checksum": Self.digest(Data(first))],
                body: first)
            #expect(sent.status == .noContent && sent.headers[.init("Upload-Offset")!] == "1000", "\(sent.text)")
            let tooLong = try await tus(.patch, location, token: guest, ["Upload-Offset": "1000", "Content-Type": stream], body: photo)
            tooLong.expectProblem(.contentTooLarge)
            let rest = photo.dropFirst(1000)
            let last = try await tus(
                .patch, location, token: guest,
                ["Upload-Offset": "1000", "Content-Type": stream, "Upload-Checksum": Self.digest(Data(rest), sha256: true)], body: rest)
            #expect(last.status == .noContent && last.headers[.init("Upload-Offset")!] == String(photo.count), "\(last.text)")
            let photoID = try #require(last.headers[.init("X-Photo-ID")!])
            let stored = try await app.call(.get, "/api/v1/photos/\(photoID)", token: guest)
            #expect(stored.string("sha256") == SHA256.hash(data: photo).hex && stored.string("source") == "camera")
            try await tus(.patch, location, token: guest, ["Upload-Offset": String(photo.count), "Content-Type": stream], body: Data())
                .expectProblem(.conflict)
            #expect(try await tus(.head, location, token: guest).headers[.init("Upload-Offset")!] == String(photo.count))

            // One shot left: a second upload holds it, a third finds none; ending the second gives it back.
            let second = try await tus(.post, "/api/v1/uploads", token: guest, create)
            #expect(second.status == .created)
            try await tus(.post, "/api/v1/uploads", token: guest, create).expectProblem(.forbidden)
            let secondLocation = try #require(second.headers[.location])
            #expect(try await tus(.delete, secondLocation, token: guest).status == .noContent)
            try await tus(.head, secondLocation, token: guest).expectProblem(.notFound)

            // creation-with-upload, and the same bytes again: the photo already there, the shot given back.
            let withBody = try await tus(
                .post, "/api/v1/uploads", token: guest, create.merging(["Content-Type": stream]) { $1 }, body: photo)
            withBody.expectProblem(.conflict)
            #expect(withBody.string("existingId") == photoID)
            #expect(try await app.call(.get, "/api/v1/me", token: guest)["guest"].flatMap { ($0 as? [String: Any])?["shotsLeft"] as? Int } == 1)

            // An upload left alone expires: gone after a day, its shot given back.
            let idle = try await tus(.post, "/api/v1/uploads", token: guest, create)
            let idleLocation = try #require(idle.headers[.location])
            #expect(try await app.call(.get, "/api/v1/me", token: guest)["guest"].flatMap { ($0 as? [String: Any])?["shotsLeft"] as? Int } == 0)
            app.clock.advance(by: 25 * 3600)
            try await tus(.head, idleLocation, token: guest).expectProblem(.notFound)
            #expect(try await app.services.resumableUploads.sweep() >= 1)
            app.clock.advance(by: -25 * 3600)
            app.services.recentReads.forgetAll()  // in service a remembered identity lasts a second
            let afterExpiry = try await app.call(.get, "/api/v1/me", token: guest)
            #expect((afterExpiry["guest"] as? [String: Any])?["shotsLeft"] as? Int == 1, "\(afterExpiry.text)")
            // At most 20 unfinished uploads a sender: each holds a file for up to a day.
            for _ in 0..<ResumableUploadService.maxUnfinished {
                #expect(try await tus(.post, "/api/v1/uploads", token: organizer, create).status == .created)
            }
            let tooMany = try await tus(.post, "/api/v1/uploads", token: organizer, create)
            #expect(tooMany.expectProblem(.forbidden).contains("under way"))
            #expect(tooMany.string("type") == "/problems/too-many-uploads")
            #expect(try await app.services.resumableUploads.sweep() == 0)
            app.clock.advance(by: 25 * 3600)
            #expect(try await app.services.resumableUploads.sweep() >= ResumableUploadService.maxUnfinished)
            app.clock.advance(by: -25 * 3600)
            let files = try FileManager.default.contentsOfDirectory(atPath: app.services.configuration.resumableUploadsDirectory.path)
            #expect(files.isEmpty, "no bytes left behind: \(files)")
        }
    }

    @Test("A stalled PATCH holds the lock (423) until a HEAD stops it; what arrived is kept and the upload goes on")
    func lockReleasedByHead() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let port = try #require(app.client.port)
            let organizer = try await app.userToken()
            let eventID = try #require(try await app.createEvent(token: organizer)["id"] as? String)
            let photo = try await TestImages.jpeg(width: 1200, height: 900)
            var headers: HTTPFields = [.init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(organizer)"]
            headers[.init("Upload-Length")!] = String(photo.count)
            headers[.init("Upload-Metadata")!] = Self.metadata(["event": eventID])
            let created = try await app.send("/api/v1/uploads", method: .post, headers: headers, body: nil)
            let location = try #require(created.headers[.location])

            // A client that announces the whole rest, sends 20,000 bytes and goes quiet (its phone left the Wi-Fi).
            let stalled = try RawConnection(port: port)
            stalled.send(
                "PATCH \(location) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(organizer)\r\nTus-Resumable: 1.0.0\r\n"
                    + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(photo.count)\r\n\r\n")
            photo.prefix(20_000).withUnsafeBytes { _ = Glibc.send(stalled.socket, $0.baseAddress, 20_000, Int32(MSG_NOSIGNAL)) }
            try await Task.sleep(for: .milliseconds(500))

            var patch: HTTPFields = [.init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(organizer)"]
            patch[.contentType] = "application/offset+octet-stream"
            patch[.init("Upload-Offset")!] = "0"
            let locked = try await app.send(location, method: .patch, headers: patch, body: ByteBuffer(data: photo))
            #expect(locked.status.code == 423, "\(locked.text)")

            let head = try await app.send(
                location, method: .head, headers: [.init("Tus-Resumable")!: "1.0.0", .authorization: "Bearer \(organizer)"], body: nil)
            #expect(head.status == .ok)
            let offset = try #require(head.headers[.init("Upload-Offset")!].flatMap(Int.init))
            #expect(offset == 20_000, "the bytes that arrived are kept")
            patch[.init("Upload-Offset")!] = String(offset)
            let rest = try await app.send(location, method: .patch, headers: patch, body: ByteBuffer(data: photo.dropFirst(offset)))
            #expect(rest.status == .noContent && rest.headers[.init("X-Photo-ID")!] != nil, "\(rest.text)")
        }
    }

    @Test("tuspy, the real tus client, killed at random points and run again: the photo arrives whole, once")
    func tuspyResumes() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-tus-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let (environment, port) = try await serverEnvironment(.sqlite, directory: data.appendingPathComponent("data"))
        let server = try startServer(environment.merging(["DISPOSABLE_LOG_LEVEL": "error"]) { $1 })
        try await withCleanup {
            let base = "http://127.0.0.1:\(port)"
            _ = try await waitForHTTP(base + "/healthz", server: server)
            _ = try await post(base + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
            let token = try #require(
                try await post(base + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
            let event = try await post(base + "/api/v1/events", json: ["name": "Resumed", "shotsPerGuest": 1], token: token).json
            let guest = try #require(
                try await post(base + "/api/v1/join", json: ["code": event["code"] as! String, "name": "Tom"]).json["token"] as? String)
            let photo = try await TestImages.jpeg(width: 3000, height: 2000)
            let file = data.appendingPathComponent("photo.jpg")
            try photo.write(to: file)
            let store = data.appendingPathComponent("tus-store.json").path
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("tools/tus_upload.py").path
            let arguments = [script, base, guest, event["id"] as! String, file.path, store, "8192"]
            var offsets: [Int] = []
            for _ in 0..<3 {
                let client = try ChildProcess("/usr/bin/env", ["python3"] + arguments)
                try await Task.sleep(for: .milliseconds(Int.random(in: 300...900)))
                client.signal(SIGKILL)
                await client.exited()
                offsets.append(try await Self.serverOffset(store: store, token: guest))
            }
            let finished = try await runTool("/usr/bin/env", ["python3"] + arguments)
            #expect(finished.status == 0, "\(finished.output)")
            let photoID = finished.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!photoID.isEmpty && offsets.first! < photo.count, "killed before the end: \(offsets) of \(photo.count)")
            #expect(offsets == offsets.sorted(), "each run went on from the last: \(offsets)")
            let stored = try await get("\(base)/api/v1/photos/\(photoID)", token: guest)
            #expect(stored.json["sha256"] as? String == SHA256.hash(data: photo).hex)
            let me = try await get("\(base)/api/v1/me", token: guest)
            #expect((me.json["guest"] as? [String: Any])?["shotsLeft"] as? Int == 0, "one shot, spent once")
        } cleanup: {
            server.signal(SIGTERM)
            await server.exited()
        }
    }

    @Test("Into my library (target library): accounts only, resumed in two parts, a video becomes an asset", arguments: TestEngine.allCases)
    func intoTheLibrary(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let user = try await app.userToken()
            let other = try await app.userToken()
            let event = try await app.createEvent(token: user, ["shotsPerGuest": 2])
            let guest = try await app.guestToken(code: try #require(event["code"] as? String))
            let video = try await TestVideos.make("mp4", seconds: 1)
            func tus(
                _ method: HTTPRequest.Method, _ path: String, token: String? = nil, _ fields: [String: String] = [:], body: Data? = nil
            ) async throws -> APIResponse {
                var headers: HTTPFields = [.init("Tus-Resumable")!: "1.0.0"]
                for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
                if let token { headers[.authorization] = "Bearer \(token)" }
                return try await app.send(path, method: method, headers: headers, body: body.map { ByteBuffer(data: $0) })
            }
            let create = [
                "Upload-Length": String(video.count),
                "Upload-Metadata": Self.metadata(["target": "library", "filename": "birthday.mp4", "idempotencyKey": "v-1"]),
            ]
            try await tus(.post, "/api/v1/uploads", create).expectProblem(.unauthorized)
            try await tus(.post, "/api/v1/uploads", token: guest, create).expectProblem(.forbidden)
            try await tus(.post, "/api/v1/uploads", token: user, ["Upload-Length": "10", "Upload-Metadata": Self.metadata(["target": "album"])])
                .expectProblem(.badRequest)
            let created = try await tus(.post, "/api/v1/uploads", token: user, create)
            #expect(created.status == .created, "\(created.text)")
            let location = try #require(created.headers[.location])
            let half = video.count / 2
            let stream = ["Content-Type": "application/offset+octet-stream"]
            let first = try await tus(.patch, location, token: user, stream.merging(["Upload-Offset": "0"]) { $1 }, body: video.prefix(half))
            #expect(first.status == .noContent && first.headers[.init("Upload-Offset")!] == String(half))
            // Another account learns nothing of it.
            try await tus(.head, location, token: other).expectProblem(.notFound)
            try await tus(.patch, location, token: other, stream.merging(["Upload-Offset": String(half)]) { $1 }, body: video.dropFirst(half))
                .expectProblem(.notFound)
            let rest = try await tus(
                .patch, location, token: user, stream.merging(["Upload-Offset": String(half)]) { $1 }, body: video.dropFirst(half))
            #expect(rest.status == .noContent, "\(rest.text)")
            let assetID = try #require(rest.headers[.init("Disposable-Media-Id")!])
            #expect(rest.headers[.contentLocation] == "/api/v1/library/assets/\(assetID)")
            #expect(try await tus(.head, location, token: user).headers[.init("Disposable-Media-Id")!] == assetID)
            // Its rendering is `LibraryVideoTests`' subject: here, the asset the upload made, as a plain upload makes it.
            let asset = try await app.call(.get, "/api/v1/library/assets/\(assetID)", token: user)
            #expect(asset.string("mediaType") == "video" && asset.string("fileName") == "birthday.mp4", "\(asset.text)")
            let original = try await app.call(.get, "/api/v1/library/assets/\(assetID)/original", token: user)
            #expect(Data(buffer: original.body) == video)
            // Not a photo or video: refused when it is whole, and the upload is over.
            let text = Data(repeating: UInt8(ascii: "a"), count: 100)
            let bad = try await tus(
                .post, "/api/v1/uploads", token: user,
                ["Upload-Length": "100", "Upload-Metadata": Self.metadata(["target": "library"])].merging(stream) { $1 }, body: text)
            bad.expectProblem(.unsupportedMediaType)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: user)) == [assetID])
        }
    }

    /// The offset the server has for the upload tuspy remembered (0 before it made one).
    static func serverOffset(store: String, token: String) async throws -> Int {
        guard let data = FileManager.default.contents(atPath: store),
            let url = ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["_default"] as? [String: [String: String]])?
                .values.first?["url"]
        else { return 0 }
        var request = HTTPClientRequest(url: url)
        request.method = .HEAD
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Tus-Resumable", value: "1.0.0")
        let answer = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return answer.headers.first(name: "Upload-Offset").flatMap(Int.init) ?? 0
    }
}
