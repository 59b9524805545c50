import Foundation
import Hummingbird
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// ADM-5, P-I-260: event photos count against the organizer's quota; past it, uploads are refused with the
/// numbers; deleting frees the space at once; parallel uploads near the limit never overshoot.
@Suite("Quotas (ADM-5)")
struct QuotaTests {
    @Test(
        "50 parallel uploads with room for exactly 5: 5 accepted, 45 refused with 403 quota-exceeded, never past the quota",
        arguments: TestEngine.allCases)
    func neverOvershoots(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app, ["shotsPerGuest": 100])
            let admin = try await app.adminToken()
            let organizerID = try #require(((try await app.call(.get, "/api/v1/me", token: f.organizer))["user"] as? [String: Any])?["id"] as? String)
            let base = try await TestImages.jpeg(width: 96, height: 64)
            let size = base.count + "parallel 00".utf8.count
            // setup: one photo already there, then room for exactly five more
            #expect(try await app.upload(base + Data("first photo".utf8), event: f.event, token: f.guest).status == .created)
            let used = Int64(base.count + "first photo".utf8.count)
            let quota = used + Int64(5 * size + size / 2)
            #expect(try await app.call(.patch, "/api/v1/admin/users/\(organizerID)", json: ["quotaBytes": quota], token: admin).status == .ok)

            // MUT
            let responses = try await withThrowingTaskGroup(of: APIResponse.self) { group in
                for index in 0..<50 {
                    let body = base + Data(String(format: "parallel %02d", index).utf8)
                    group.addTask { try await app.upload(body, event: f.event, token: f.guest) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            // validate
            #expect(responses.filter { $0.status == .created }.count == 5)
            let refused = responses.filter { $0.status != .created }
            #expect(refused.count == 45)
            for response in refused {
                #expect(response.string("type")?.hasSuffix("quota-exceeded") == true, "\(response.text)")
            }
            let detail = try #require(refused.first).expectProblem(.forbidden)
            #expect(detail.contains("ask the organizer"), "a guest is told whom to ask: \(detail)")
            let account = try await app.call(.get, "/api/v1/admin/users", token: admin)
            let row = try #require((account["items"] as? [[String: Any]])?.first { $0["id"] as? String == organizerID })
            #expect(row["usedBytes"] as? Int == Int(used) + 5 * size)
            #expect((row["usedBytes"] as? Int ?? .max) <= Int(quota))
        }
    }

    @Test(
        "Past the quota the organizer reads how much is used and allowed; deleting a photo or an event frees the space at once",
        arguments: TestEngine.allCases)
    func deletingFrees(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)["id"] as! String
            let admin = try await app.adminToken()
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: organizer))["user"] as? [String: Any])?["id"] as? String)
            let first = try await TestImages.jpeg(width: 300, height: 200)
            let photo = try #require(try await app.upload(first, event: event, token: organizer).string("id"))
            // Room for either photo alone, not both (noise JPEGs differ in size from run to run).
            let second = try await TestImages.jpeg(width: 301, height: 200)
            let quota = max(first.count, second.count) + 100
            #expect(try await app.call(.patch, "/api/v1/admin/users/\(me)", json: ["quotaBytes": quota], token: admin).status == .ok)

            // Full: the next photo is refused, saying what is used and what is allowed.
            let refused = try await app.upload(second, event: event, token: organizer)
            let detail = refused.expectProblem(.forbidden)
            #expect(refused.string("type")?.hasSuffix("/quota-exceeded") == true)
            #expect(detail.contains(Quota.format(Int64(first.count))) && detail.contains(Quota.format(Int64(quota))), "\(detail)")
            #expect(detail.hasPrefix("Your storage is full"))

            // Deleting the photo frees its space: the same upload now passes.
            _ = try await app.waitUntilProcessed(photo, token: organizer)
            #expect(try await app.call(.delete, "/api/v1/photos/\(photo)", token: organizer).status == .noContent)
            let again = try await app.upload(second, event: event, token: organizer)
            #expect(again.status == .created, "\(again.text)")
            #expect(try await usedBytes(app, me) == Int64(second.count))

            // Deleting the event frees everything in it.
            #expect(try await app.call(.delete, "/api/v1/events/\(event)", token: organizer).status == .noContent)
            #expect(try await usedBytes(app, me) == 0)
        }
    }

    @Test("The instance's default quota applies to accounts without their own, and follows its changes", arguments: TestEngine.allCases)
    func defaultQuota(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let admin = try await app.adminToken()
            let settings = try await app.call(.get, "/api/v1/admin/settings", token: admin)
            #expect(settings["defaultQuotaBytes"] as? Int == 50_000_000_000, "the seed's 50 GB")
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)["id"] as! String
            let changed = try await app.call(.patch, "/api/v1/admin/settings", json: ["defaultQuotaBytes": 1000], token: admin)
            #expect(changed["defaultQuotaBytes"] as? Int == 1000)
            try await app.upload(try await TestImages.jpeg(), event: event, token: organizer).expectProblem(.forbidden)
            // Its own quota wins over the default; null returns it to the default.
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: organizer))["user"] as? [String: Any])?["id"] as? String)
            let own = try await app.call(.patch, "/api/v1/admin/users/\(me)", json: ["quotaBytes": 10_000_000], token: admin)
            #expect(own["quotaBytes"] as? Int == 10_000_000 && own["quotaIsDefault"] as? Bool == false)
            #expect(try await app.upload(try await TestImages.jpeg(), event: event, token: organizer).status == .created)
            let back = try await app.call(.patch, "/api/v1/admin/users/\(me)", json: ["quotaBytes": NSNull()], token: admin)
            #expect(back["quotaBytes"] as? Int == 1000 && back["quotaIsDefault"] as? Bool == true)
            try await app.upload(try await TestImages.jpeg(width: 641), event: event, token: organizer).expectProblem(.forbidden)
            // Hostile values
            for (bad, status): (Any, HTTPResponse.Status) in [
                (-1, .unprocessableContent), ("lots", .badRequest), (1e30, .badRequest), (true, .badRequest),
            ] {
                try await app.call(.patch, "/api/v1/admin/users/\(me)", json: ["quotaBytes": bad], token: admin).expectProblem(status)
                try await app.call(.patch, "/api/v1/admin/settings", json: ["defaultQuotaBytes": bad], token: admin).expectProblem(status)
            }
            #expect(try await app.call(.get, "/api/v1/admin/settings", token: admin)["defaultQuotaBytes"] as? Int == 1000, "unchanged")
        }
    }

    private func usedBytes(_ app: TestApp, _ userID: String) async throws -> Int64? {
        try await app.services.database.sql { db in
            try await db.raw("SELECT used_bytes FROM users WHERE id = \(bind: userID)").first()?.decode(column: "used_bytes", as: Int64.self)
        }
    }
}
