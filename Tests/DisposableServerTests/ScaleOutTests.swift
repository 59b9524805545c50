import Foundation
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// LIVE-2, OPS-4: several instances on one PostgreSQL and one S3 bucket, sharing no folder — what one
/// stores and announces, the other serves.
@Suite("Scale-out (LIVE-2)", .serialized)
struct ScaleOutTests {
    @Test("Upload on one `disposable serve`; the feed, gallery, original, ZIP and delete on another (PostgreSQL + S3)")
    func changeCrossesInstances() async throws {
        // setup: two instances, one database, one bucket, their own data folders
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let two = try await TwoInstances.start(in: directory, logLevel: "error")
        defer { two.stop() }
        let (a, b, token, bucket) = (two.a, two.b, two.token, two.bucket)
        let event = try #require(try await post(a + "/api/v1/events", json: ["name": "Two instances"], token: token).json["id"] as? String)
        let stream = try await SSEClient.connect("\(b)/api/v1/events/\(event)/changes", token: token)
        // B writes (and keeps) the empty gallery page before the photo exists.
        let gallery = "\(b)/api/v1/events/\(event)/photos"
        #expect((try await get(gallery, token: token).json["items"] as? [Any])?.isEmpty == true)

        // MUT: the photo goes to instance A
        let photo = try await TestImages.jpeg()
        let uploaded = try await upload(photo, to: "\(a)/api/v1/events/\(event)/photos", token: token)
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

        // validate: B serves the original, byte for byte, and the ZIP holds it (stored, not compressed)
        let id = try #require(uploaded.json["id"] as? String)
        #expect(try await get("\(b)/api/v1/photos/\(id)/original", token: token).body == photo)
        let archive = try await get("\(b)/api/v1/events/\(event)/archive.zip", token: token)
        #expect(archive.status == 200 && archive.body.range(of: photo) != nil)

        // validate: deleted on B, gone for A and from the bucket
        #expect(try await delete("\(b)/api/v1/photos/\(id)", token: token).status == 204)
        #expect(try await get("\(a)/api/v1/photos/\(id)", token: token).status == 404)
        let store = try S3BlobStore(settings: bucket)
        var left = try await store.list(prefix: "events/", after: nil, limit: 10)
        let deadline = ContinuousClock.now + .seconds(30)
        while !left.isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            left = try await store.list(prefix: "events/", after: nil, limit: 10)
        }
        #expect(left.isEmpty, "objects left in the bucket: \(left)")
    }

    @Test("Both instances running: a reveal is announced once on each feed; a burst on one, with both workers leasing, is ready once each")
    func backgroundWorkShared() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let two = try await TwoInstances.start(in: directory, logLevel: "info")
        defer { two.stop() }
        let (a, b, token, servers) = (two.a, two.b, two.token, two.servers)
        let event = try #require(try await post(a + "/api/v1/events", json: ["name": "Reveal"], token: token).json["id"] as? String)

        // A reveal four seconds from now: both instances' announcers see it due; the feed must say it once.
        let revealAt = Date().addingTimeInterval(4).rfc3339
        #expect(try await patch("\(a)/api/v1/events/\(event)", json: ["reveal": ["mode": "at", "at": revealAt]], token: token).status == 200)
        let feeds = [
            try await SSEClient.connect("\(a)/api/v1/events/\(event)/changes", token: token),
            try await SSEClient.connect("\(b)/api/v1/events/\(event)/changes", token: token),
        ]
        // A burst of 12 on A while both instances lease jobs from the same table: every photo ready exactly once.
        var ids: [String] = []
        for index in 0..<12 {
            let uploaded = try await upload(
                try await TestImages.jpeg(width: 400 + index, height: 300), to: "\(a)/api/v1/events/\(event)/photos", token: token)
            ids.append(try #require(uploaded.json["id"] as? String))
        }
        for feed in feeds {
            var revealed = 0
            var ready = Set<String>()
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, revealed == 0 || ready.count < ids.count {
                guard let next = try await feed.next(timeout: .seconds(10)) else { continue }
                if next.name == "event-revealed" { revealed += 1 }
                if next.name == "photo-ready", let id = (next.json["photo"] as? [String: Any])?["id"] as? String {
                    #expect(!ready.contains(id), "photo-ready twice for \(id)")
                    ready.insert(id)
                }
            }
            // A little longer: a second announcement would come within the announcers' period.
            while let late = try await feed.next(timeout: .seconds(2)) { if late.name == "event-revealed" { revealed += 1 } }
            #expect(revealed == 1, "event-revealed \(revealed) times")
            #expect(ready == Set(ids))
        }
        let logs = servers.map { String(decoding: FileManager.default.contents(atPath: $0.logPath ?? "") ?? Data(), as: UTF8.self) }
        #expect(!logs.joined().contains("error"), "\(logs)")
    }

    @Test("A sign-out on one instance is refused at once on the other, which remembers who holds a token for ten seconds, and ends its streams")
    func signOutCrossesInstances() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let two = try await TwoInstances.start(in: directory, logLevel: "error")
        defer { two.stop() }
        let (a, b, token) = (two.a, two.b, two.token)
        for _ in 0..<2 { #expect(try await get(b + "/api/v1/me", token: token).status == 200) }  // the second from memory
        // A live stream on the other instance rechecks its grant after the write it is told of, and ends.
        let bell = try await SSEClient.connect(b + "/api/v1/notifications", token: token)
        #expect(bell.status == 200)

        #expect(try await delete(a + "/api/v1/sessions/current", token: token).status == 204)
        // Told through PostgreSQL: well within the ten seconds it would otherwise keep the answer.
        let deadline = ContinuousClock.now + .seconds(3)
        var status = try await get(b + "/api/v1/me", token: token).status
        while status != 401, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            status = try await get(b + "/api/v1/me", token: token).status
        }
        #expect(status == 401)
        let streamDeadline = ContinuousClock.now + EventStream.recheck * 3
        while !bell.ended, ContinuousClock.now < streamDeadline { _ = try await bell.next(timeout: .milliseconds(200)) }
        #expect(bell.ended)
    }

    @Test("Two instances' retention sweepers at once: every expired event deleted, one record each, nothing left behind")
    func sweepersTogether() async throws {
        let bucket = try await TestS3.freshBucket()
        try await TestApp.run(
            .postgres,
            configure: {
                $0.storage = .s3(bucket); $0.retention = 86_400
            }
        ) { app in
            // setup: five events of an hour with two photos each, and one that lasts a month
            let organizer = try await app.userToken()
            var expiring: [String] = []
            for index in 0..<5 {
                let id = try #require(try await app.createEvent(token: organizer, ["name": "Party \(index)", "durationHours": 1])["id"] as? String)
                for photo in 0..<2 {
                    let uploaded = try await app.upload(
                        try await TestImages.jpeg(width: 300 + photo, height: 200 + index), event: id, token: organizer)
                    _ = try await app.waitUntilProcessed(try #require(uploaded.string("id")), token: organizer)
                }
                expiring.append(id)
            }
            let kept = try #require(try await app.createEvent(token: organizer, ["name": "Month", "durationHours": 720])["id"] as? String)
            let keptPhoto = try #require(try await app.upload(try await TestImages.jpeg(), event: kept, token: organizer).string("id"))
            _ = try await app.waitUntilProcessed(keptPhoto, token: organizer)

            // A second instance: its own services and data folder, on the same database, bucket and time.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-second-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var configuration = app.services.configuration
            configuration.dataDirectory = folder.path
            let database = try await openDatabase(configuration.database, poolSize: 4, logger: app.services.logger)
            let running = Task { await database.run() }
            defer { running.cancel() }
            let other = try AppServices(configuration: configuration, database: database, clock: app.clock, logger: app.services.logger)

            // MUT: two days later, both sweep at the same moment, twice
            app.clock.advance(by: 2 * 86_400)
            for _ in 0..<2 {
                async let first = app.services.retention.sweep()
                async let second = other.retention.sweep()
                _ = try await (first, second)
            }

            // validate: one deletion record per expired event, no row or object of theirs, the month's event whole
            let records = try await app.services.database.sql { db in
                try await db.raw("SELECT event_id FROM deletion_records").all().map { try $0.decode(column: "event_id", as: String.self) }
            }
            #expect(records.sorted() == expiring.sorted())
            let rows = try await app.services.database.sql { db in
                try await db.raw("SELECT (SELECT COUNT(*) FROM events) AS events, (SELECT COUNT(*) FROM photos) AS photos").first()
                    .map { [try $0.decode(column: "events", as: Int.self), try $0.decode(column: "photos", as: Int.self)] }
            }
            #expect(rows == [1, 1])
            let objects = try await S3BlobStore(settings: bucket).list(prefix: "events/", after: nil, limit: 100)
            #expect(Set(objects) == Set(["original", "preview.jpg", "thumbnail.jpg"].map { "events/\(kept)/\(keptPhoto)/\($0)" }))
            #expect(try await app.call(.get, "/api/v1/photos/\(keptPhoto)/original", token: organizer).status == .ok)
        }
    }
}

/// Two `disposable serve` on one fresh PostgreSQL database and one bucket, with their own data folders, and an
/// organizer signed in on the first.
private struct TwoInstances {
    let a: String
    let b: String
    let servers: [ChildProcess]
    let bucket: S3Settings
    let token: String

    static func start(in directory: URL, logLevel: String) async throws -> TwoInstances {
        guard case .postgres(let url) = try await TestEngine.postgres.freshDatabase(in: directory) else {
            throw TestSetupError("no PostgreSQL database")
        }
        let bucket = try await TestS3.freshBucket()
        let ports = [try freePort(), try freePort()]
        let servers = try ports.enumerated().map { index, port in
            try startServer(
                [
                    "DISPOSABLE_DATA_DIR": directory.appendingPathComponent("instance\(index)").path, "DISPOSABLE_PORT": String(port),
                    "DISPOSABLE_DATABASE_URL": url, "DISPOSABLE_DATABASE_POOL_SIZE": "4", "DISPOSABLE_LOG_LEVEL": logLevel,
                ].merging(TestS3.environment(bucket)) { $1 })
        }
        let (a, b) = ("http://127.0.0.1:\(ports[0])", "http://127.0.0.1:\(ports[1])")
        do {
            // Two instances migrating and starting at once, while the rest of the suite shares the two cores: generous.
            for (base, server) in zip([a, b], servers) { _ = try await waitForHTTP(base + "/healthz", server: server, timeout: 90) }
            _ = try await post(a + "/api/v1/users", json: ["email": "o@example.com", "password": "password"])
            let token = try #require(
                try await post(a + "/api/v1/sessions", json: ["email": "o@example.com", "password": "password"]).json["token"] as? String)
            return TwoInstances(a: a, b: b, servers: servers, bucket: bucket, token: token)
        } catch {
            for server in servers { server.signal(SIGTERM) }
            throw error
        }
    }

    func stop() { for server in servers { server.signal(SIGTERM) } }
}
