import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// LIVE-2: several instances on one PostgreSQL — a change committed by one reaches subscribers of another.
@Suite("Scale-out (LIVE-2)", .serialized)
struct ScaleOutTests {
    @Test("Upload on one `disposable serve`, receive the event and see it in the gallery on another")
    func changeCrossesInstances() async throws {
        // setup: two instances, one database, their own media folders (S3 comes with its own issue)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        guard case .postgres(let url) = try await TestEngine.postgres.freshDatabase(in: directory) else { return }
        let ports = [try freePort(), try freePort()]
        let servers = try ports.enumerated().map { index, port in
            try startServer([
                "DISPOSABLE_DATA_DIR": directory.appendingPathComponent("instance\(index)").path, "DISPOSABLE_PORT": String(port),
                "DISPOSABLE_DATABASE_URL": url, "DISPOSABLE_LOG_LEVEL": "error",
            ])
        }
        defer { for server in servers { server.signal(SIGTERM) } }
        let (a, b) = ("http://127.0.0.1:\(ports[0])", "http://127.0.0.1:\(ports[1])")
        for (base, server) in zip([a, b], servers) { _ = try await waitForHTTP(base + "/healthz", server: server) }

        _ = try await post(a + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
        let token = try #require(
            try await post(a + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
        let event = try #require(try await post(a + "/api/v1/events", json: ["name": "Two instances"], token: token).json["id"] as? String)
        let stream = try await SSEClient.connect("\(b)/api/v1/events/\(event)/changes", token: token)
        // B writes (and keeps) the empty gallery page before the photo exists.
        let gallery = "\(b)/api/v1/events/\(event)/photos"
        #expect((try await get(gallery, token: token).json["items"] as? [Any])?.isEmpty == true)

        // MUT: the photo goes to instance A
        let uploaded = try await upload(try await TestImages.jpeg(), to: "\(a)/api/v1/events/\(event)/photos", token: token)
        #expect(uploaded.status == 201)

        // validate: the subscriber on instance B hears of it (LISTEN/NOTIFY)
        let added = try #require(try await stream.next())
        #expect(added.name == "photo-added")
        #expect((added.json["photo"] as? [String: Any])?["id"] as? String == uploaded.json["id"] as? String)

        // validate: B's gallery page shows it once it is ready — a page B kept must not outlive A's change
        let ready = try #require(try await stream.next())
        #expect(ready.name == "photo-ready")
        let items = try #require(try await get(gallery, token: token).json["items"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == [uploaded.json["id"] as? String])
    }
}
