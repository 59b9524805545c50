import Crypto
import DisposableClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SDK-1: the Swift SDK (generated from the contract, with its hand-written layer) against a real server.
@Suite("The Swift SDK against a live server (SDK-1)")
struct SDKTests {
    @Test("Account, event, guest, upload with progress, the same file twice, hashes, paging, the feed, the ZIP, a refusal")
    func endToEnd() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let server = URL(string: "http://127.0.0.1:\(try #require(app.client.port))")!
            let anonymous = DisposableClient(serverURL: server)
            _ = try await anonymous.api.registerUser(body: .json(.init(email: "ana@example.com", password: "correct horse", name: "Ana")))
                .created.body.json
            let (organizer, session) = try await DisposableClient.logIn(server: server, email: "ana@example.com", password: "correct horse")
            #expect(session.user.name == "Ana")
            let event = try await organizer.api.createEvent(body: .json(.init(name: "Ana & Ben", shotsPerGuest: 10))).created.body.json
            #expect(event.status == .live && event.shotsPerGuest == 10)

            let (guest, joined) = try await DisposableClient.join(server: server, code: event.code, name: "Léa")
            #expect(joined.guest.shotsLeft == 10)
            let feed = Task {
                var seen: [EventChange] = []
                for try await change in organizer.changes(in: event.id, after: 0) {
                    seen.append(change)
                    if seen.count(where: { $0.kind == .photoReady }) == 3 { break }
                }
                return seen
            }

            let files = try await (0..<3).asyncMap { index in
                try writeTemporaryFile(try await TestImages.jpeg(width: 400 + index, height: 300), suffix: ".jpg")
            }
            defer { for file in files { try? FileManager.default.removeItem(at: file) } }
            let reported = NIOLockedValueBox<[Int64]>([])
            let first = try await guest.uploadPhoto(files[0], to: event.id, source: .camera) { sent, total in
                reported.withLockedValue { $0.append(sent) }
                #expect(total == (try? FileManager.default.attributesOfItem(atPath: files[0].path)[.size] as? Int64))
            }
            #expect(!first.alreadyThere && first.photo.source == .camera)
            #expect(reported.withLockedValue { $0.last } == first.photo.byteSize)
            // The same file again (a retried request, a script run twice): the first photo, no second shot.
            let again = try await guest.uploadPhoto(files[0], to: event.id)
            #expect(again.alreadyThere && again.photo.id == first.photo.id)

            let hashes = try files.map { try DisposableClient.sha256(of: $0) }
            #expect(hashes[0] == first.photo.sha256)
            #expect(try await guest.missingHashes(hashes, in: event.id) == Set(hashes[1...]))
            // The second with the app's own first look: shown with it at once.
            let firstLook = try await TestImages.firstLook(of: try Data(contentsOf: files[1]), size: 300)
            let shown = try await guest.uploadPhoto(files[1], to: event.id, source: .camera, firstLook: firstLook)
            #expect(shown.photo.status == .ready && shown.photo.firstLook == true && shown.photo.previewPending == true)
            try await guest.uploadPhoto(files[2], to: event.id)
            #expect(try await guest.missingHashes(hashes, in: event.id).isEmpty)

            let changes = try await withTimeLimit(.seconds(60), "the change feed") { try await feed.value }
            #expect(changes.filter { $0.kind == .photoAdded }.count == 3)
            #expect(changes.map(\.seq) == changes.map(\.seq).sorted() && Set(changes.map(\.seq)).count == changes.count)

            // Ready now: the gallery, two a page.
            var listed: [String] = []
            for try await photo in organizer.photos(in: event.id, pageSize: 2) { listed.append(photo.sha256) }
            #expect(Set(listed) == Set(hashes) && listed.count == 3)

            let zip = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString).zip")
            defer { try? FileManager.default.removeItem(at: zip) }
            let written = try await organizer.downloadArchive(of: event.id, to: zip)
            let archive = try Data(contentsOf: zip)
            #expect(written == Int64(archive.count) && archive.starts(with: [0x50, 0x4B, 0x03, 0x04]))
            for file in files {
                let original = try Data(contentsOf: file)
                #expect(archive.range(of: original) != nil, "each original, stored whole in the ZIP")
            }

            // A refusal arrives as a DisposableProblem with its sentence, through the layer and through `api`.
            await #expect(throws: DisposableProblem.self) { try await DisposableClient.join(server: server, code: "ZZZZ-ZZZZ", name: "Max") }
            do {
                _ = try await guest.api.getEventStats(path: .init(id: event.id))
                Issue.record("a guest read the organizer's numbers")
            } catch {
                let problem = try #require(DisposableProblem.from(error))
                #expect(problem.status == 403 && !problem.detail.isEmpty)
            }
        }
    }

    @Test("The change feed resumes after its connection drops (a server restart): nothing missed, nothing twice")
    func feedResumes() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-sdk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let (environment, port) = try await serverEnvironment(.sqlite, directory: data)
        let quiet = environment.merging(["DISPOSABLE_LOG_LEVEL": "error"]) { $1 }
        var server = try startServer(quiet)
        let base = "http://127.0.0.1:\(port)"
        _ = try await waitForHTTP(base + "/healthz", server: server)
        let url = URL(string: base)!
        _ = try await DisposableClient(serverURL: url).api.registerUser(body: .json(.init(email: "o@example.com", password: "password")))
        let (organizer, _) = try await DisposableClient.logIn(server: url, email: "o@example.com", password: "password")
        let event = try await organizer.api.createEvent(body: .json(.init(name: "Restarted"))).created.body.json

        // The client waits 3 s before connecting again: the photos sent meanwhile reach it only by resuming after the
        // last change it had (Last-Event-ID), not by listening from now on.
        let received = NIOLockedValueBox<[EventChange]>([])
        let feed = Task {
            for try await change in organizer.changes(in: event.id, reconnectDelay: .seconds(3)) where change.kind == .photoAdded {
                received.withLockedValue { $0.append(change) }
                if received.withLockedValue({ $0.count }) == 4 { return }
            }
        }
        defer { feed.cancel() }
        func send(_ index: Int) async throws {
            let file = try writeTemporaryFile(try await TestImages.jpeg(width: 300 + index, height: 200), suffix: ".jpg")
            defer { try? FileManager.default.removeItem(at: file) }
            try await organizer.uploadPhoto(file, to: event.id)
        }
        try await send(0)
        try await send(1)
        try await withTimeLimit(.seconds(120), "the first two changes") {
            while received.withLockedValue({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }

        server.signal(SIGKILL)
        await server.exited()
        server = try startServer(quiet)
        defer { server.signal(SIGTERM) }
        _ = try await waitForHTTP(base + "/healthz", server: server)
        try await send(2)
        try await send(3)
        try await withTimeLimit(.seconds(60), "the feed after the restart") { try await feed.value }
        let seqs = received.withLockedValue { $0.map(\.seq) }
        #expect(seqs.count == 4 && Set(seqs).count == 4 && seqs == seqs.sorted(), "\(seqs)")
        server.signal(SIGTERM)
        await server.exited()
    }

    @Test("An SDK of today reads the answers of a newer server that added fields (an older CLI must not break)")
    func toleratesNewFields() async throws {
        // Today's real answer to "who am I", then the same with fields a later server might add, at both levels.
        let answer = NIOLockedValueBox(Data())
        try await TestApp.run(.sqlite) { app in
            let token = try await app.userToken(email: "ana@example.com")
            var newer = try await app.call(.get, "/api/v1/me", token: token).json
            newer["addedLater"] = ["nested": true]
            var user = try #require(newer["user"] as? [String: Any])
            user["mediaType"] = "image/avif"
            newer["user"] = user
            answer.withLockedValue { $0 = try! JSONSerialization.data(withJSONObject: newer) }
        }
        let body = answer.withLockedValue { $0 }

        let router = Router()
        router.get("/api/v1/me") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: body)))
        }
        // Started and stopped by HummingbirdTesting, which waits until it listens and shuts it down gracefully: a
        // server cancelled while it accepted a connection crashed the test process (NIOAsyncWriter's deinit).
        let server = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await server.test(.live) { live in
            let client = DisposableClient(serverURL: URL(string: "http://127.0.0.1:\(try #require(live.port))")!)
            let me = try await client.api.getMe().ok.body.json
            #expect(me.kind == .user && me.user?.email == "ana@example.com")
        }
    }

    @Test("The SDK's generated code comes from the committed contract (run scripts/generate-sdk after changing it)")
    func generatedFromTheContract() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var contract = try Data(contentsOf: root.appendingPathComponent("Sources/DisposableWeb/OpenAPI/openapi.yaml"))
        contract.append(try Data(contentsOf: root.appendingPathComponent("Sources/DisposableClient/openapi-generator-config.yaml")))
        let digest = SHA256.hash(data: contract).map { String(format: "%02x", $0) }.joined()
        #expect(digest == DisposableClient.contractDigest, "openapi.yaml changed since the SDK was generated: run scripts/generate-sdk")
    }
}
