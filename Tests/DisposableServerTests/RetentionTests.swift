import DisposableAPI
import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

@Suite("Retention (RET-1, RET-2, RET-3)")
struct RetentionTests {
    @Test("Past its retention an event is deleted wholly, a record is kept, and a re-run is harmless", arguments: TestEngine.allCases)
    func expiry(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.retention = 7 * 86_400 }) { app in
            let f = try await UploadTests.fixture(app, ["durationHours": 24])
            let keep = try await app.createEvent(token: f.organizer, ["name": "Next year", "durationHours": 720])
            _ = try await GalleryTests.shoot(app, 2, event: f.event, token: f.guest)
            let event = try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer)
            let deletesAt = try #require(parseTime(event["deletesAt"]))
            #expect(deletesAt == (try #require(parseTime(event["endsAt"]))) + 7 * 86_400, "RET-2: the organizer sees the date")

            // Not yet: one minute before.
            app.clock.set(deletesAt - 60)
            #expect(try await app.services.retention.sweep() == 0)
            #expect(try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).status == .ok)

            // MUT
            app.clock.set(deletesAt)
            #expect(try await app.services.retention.sweep() == 1)
            #expect(try await app.services.retention.sweep() == 0, "idempotent")

            // validate: nothing of it remains — rows, files, change log, guests' tokens
            try await app.call(.get, "/api/v1/events/\(f.event)", token: f.organizer).expectProblem(.notFound)
            try await app.call(.get, "/api/v1/me", token: f.guest).expectProblem(.unauthorized)
            #expect(app.storedFiles().isEmpty)
            let leftovers = try await app.services.database.sql { db in
                var counts: [Int] = []
                for table in ["photos", "guests", "changes", "jobs"] {
                    counts.append(try await db.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()!.decode(column: "n", as: Int.self))
                }
                return counts
            }
            #expect(leftovers == [0, 0, 0, 0])
            #expect(try await app.call(.get, "/api/v1/events/\(keep["id"]!)", token: f.organizer).status == .ok)

            // RET-3: the admin sees what was deleted and when — no content.
            _ = try await app.services.accounts.createAdmin(email: "root@example.com", password: "password", name: nil)
            let admin = try #require(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "root@example.com", password: "password")).string("token"))
            let records = try #require(try await app.call(.get, "/api/v1/admin/deletions", token: admin)["items"] as? [[String: Any]])
            #expect(records.count == 1)
            #expect(records.first?["eventId"] as? String == f.event)
            #expect(records.first?["photoCount"] as? Int == 2)
            #expect(records.first?["reason"] as? String == "expired")
        }
    }

    @Test("A sweep killed halfway (record written, files gone, rows still there) completes when run again")
    func interruptedSweep() async throws {
        try await TestApp.run(.sqlite, configure: { $0.retention = 86_400 }) { app in
            let f = try await UploadTests.fixture(app, ["durationHours": 1])
            _ = try await GalleryTests.shoot(app, 1, event: f.event, token: f.guest)
            app.clock.advance(by: 2 * 86_400)
            // setup: the first two steps of a deletion, then "the process dies"
            try await app.services.database.sql { db in
                try await db.raw(
                    """
                    INSERT INTO deletion_records (event_id, organizer_id, reason, ended_at, deleted_at, photo_count, byte_count)
                    SELECT id, organizer_id, 'expired', ends_at, 0, 1, 0 FROM events WHERE id = \(bind: f.event)
                    """
                ).run()
            }
            try FileManager.default.removeItem(atPath: app.services.configuration.mediaDirectory + "/events/\(f.event)")
            // MUT
            #expect(try await app.services.retention.sweep() == 1)
            // validate
            let remaining = try await app.services.database.sql { db in
                try await db.raw("SELECT COUNT(*) AS n FROM events WHERE id = \(bind: f.event)").first()!.decode(column: "n", as: Int.self)
            }
            #expect(remaining == 0)
        }
    }

    @Test("Deleting an event by hand is recorded too, and its live streams end", arguments: [TestEngine.sqlite])
    func organizerDeletion(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let f = try await UploadTests.fixture(app)
            let stream = try await app.subscribe(event: f.event, token: f.guest)
            #expect(try await app.call(.delete, "/api/v1/events/\(f.event)", token: f.organizer).status == .noContent)
            let last = try #require(try await stream.next())
            #expect(last.name == "event-deleted")
            let reason = try await app.services.database.sql { db in
                try await db.raw("SELECT reason FROM deletion_records WHERE event_id = \(bind: f.event)").first()?.decode(
                    column: "reason", as: String.self)
            }
            #expect(reason == "organizer")
        }
    }
}
