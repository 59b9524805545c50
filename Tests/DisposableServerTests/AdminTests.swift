import DisposableAPI
import Foundation
import Hummingbird
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// ADM-4, ADM-6, P-I-220/230/250: the admin's accounts, switches and numbers, through the API.
@Suite("Admin (ADM-4, ADM-6)")
struct AdminTests {
    @Test(
        "Accounts listed with quota and used space; added while registration is closed; deleted with every file and row of theirs",
        arguments: TestEngine.allCases)
    func accounts(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let admin = try await app.adminToken()
            // Registration off: registering answers 403 with the seed's sentence, on the API and the page.
            let off = try await app.call(
                .patch, "/api/v1/admin/settings", body: InstanceSettingsJSON(registrationEnabled: false, defaultQuotaBytes: nil), token: admin)
            #expect(off["registrationEnabled"] as? Bool == false)
            let register = try await app.call(.post, "/api/v1/users", body: RegisterRequest(email: "late@example.com", password: "password"))
            #expect(register.expectProblem(.forbidden) == "Account registration is disabled")
            #expect(try await app.call(.get, "/register").status == .forbidden)
            #expect(try await app.call(.get, "/status")["registrationEnabled"] as? Bool == false)

            // The admin adds an account anyway; it signs in and organizes.
            let added = try await app.call(
                .post, "/api/v1/admin/users", body: NewUserRequest(email: "Ana@Example.com", password: "a good password", name: "Ana"), token: admin)
            #expect(added.status == .created, "\(added.text)")
            #expect(added["email"] as? String == "ana@example.com" && added["quotaBytes"] as? Int == 50_000_000_000)
            #expect(added["usedBytes"] as? Int == 0 && added["isAdmin"] as? Bool == false)
            let ana = try #require(added.string("id"))
            let token = try #require(
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "a good password")).string(
                    "token"))
            let event = try await app.createEvent(token: token)
            let id = event["id"] as! String
            let guest = try await app.guestToken(code: event["code"] as! String)
            var sizes = 0
            for width in [200, 201] {
                let bytes = try await TestImages.jpeg(width: width, height: 150)
                sizes += bytes.count
                let photo = try #require(try await app.upload(bytes, event: id, token: guest).string("id"))
                _ = try await app.waitUntilProcessed(photo, token: token)
            }
            try await app.call(.post, "/api/v1/admin/users", body: NewUserRequest(email: "ana@example.com", password: "password"), token: admin)
                .expectProblem(.conflict)
            try await app.call(.post, "/api/v1/admin/users", body: NewUserRequest(email: "not an email", password: "password"), token: admin)
                .expectProblem(.unprocessableContent)

            // Listed by email with what they use: the guests' photos count against the organizer.
            let list = try await app.call(.get, "/api/v1/admin/users?limit=1", token: admin)
            #expect((list["items"] as? [[String: Any]])?.count == 1)
            let cursor = try #require(list.string("nextCursor"))
            let rest = try await app.call(.get, "/api/v1/admin/users?cursor=\(cursor)", token: admin)
            let row = try #require((rest["items"] as? [[String: Any]])?.first { $0["id"] as? String == ana })
            #expect(row["usedBytes"] as? Int == sizes)
            for bad in ["limit=0", "limit=501", "limit=lots"] {
                try await app.call(.get, "/api/v1/admin/users?\(bad)", token: admin).expectProblem(.unprocessableContent)
            }

            // Stats see them.
            let stats = try await app.call(.get, "/api/v1/admin/stats", token: admin).decode(InstanceStats.self)
            #expect(stats.photos == 2 && stats.events.live == 1)
            #expect(stats.uploadsPerDay.count == 30 && stats.uploadsPerDay.last?.uploads == 2)
            #expect(stats.storage.storedBytes > Int64(sizes))

            // One count for the panel, /metrics and the account: her library counts too, and the instance
            // never stores less than one of its accounts uses.
            let picture = try await TestImages.structured(width: 1600, height: 1200)
            let asset = try #require(try await app.uploadToLibrary(picture, token: token).string("id"))
            _ = try await app.waitUntilAssetProcessed(asset, token: token)
            let accounts = try await app.call(.get, "/api/v1/admin/users", token: admin)["items"] as? [[String: Any]]
            let used = try #require(accounts?.first { $0["id"] as? String == ana }?["usedBytes"] as? Int)
            let stored = try await app.call(.get, "/api/v1/admin/stats", token: admin).decode(InstanceStats.self).storage.storedBytes
            #expect(used == sizes + picture.count && stored > Int64(used), "stored \(stored), used \(used)")
            let scraped = try await app.call(.get, "/metrics", token: admin).text.split(separator: "\n").first {
                $0.hasPrefix("disposable_bytes_stored ")
            }
            #expect(scraped.flatMap { Double($0.split(separator: " ")[1]) } == Double(stored))

            // MUT: delete Ana
            #expect(try await app.call(.delete, "/api/v1/admin/users/\(ana)", token: admin).status == .noContent)

            // validate: no file, no row of theirs; her session and her guests' sessions end; a deletion record stays
            #expect(app.storedFiles().isEmpty, "\(app.storedFiles())")
            try await app.call(.get, "/api/v1/me", token: token).expectProblem(.unauthorized)
            try await app.call(.get, "/api/v1/me", token: guest).expectProblem(.unauthorized)
            let leftovers = try await app.services.database.sql { db in
                var counts: [String: Int] = [:]
                for (table, condition) in [
                    ("users", "id = '\(ana)'"), ("events", "organizer_id = '\(ana)'"), ("photos", "1 = 1"), ("guests", "1 = 1"),
                    ("access_tokens", "user_id = '\(ana)'"), ("jobs", "1 = 1"), ("changes", "1 = 1"),
                ] {
                    counts[table] = try await db.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table) WHERE \(unsafeRaw: condition)").first()!
                        .decode(column: "n", as: Int.self)
                }
                return counts
            }
            #expect(leftovers.values.allSatisfy { $0 == 0 }, "\(leftovers)")
            let records = try #require(try await app.call(.get, "/api/v1/admin/deletions", token: admin)["items"] as? [[String: Any]])
            #expect(records.first?["eventId"] as? String == id && records.first?["reason"] as? String == "account-deleted")
            try await app.call(.delete, "/api/v1/admin/users/\(ana)", token: admin).expectProblem(.notFound)
            try await app.call(.patch, "/api/v1/admin/users/\(ana)", body: AdminUserPatch(name: .value("Ghost")), token: admin).expectProblem(
                .notFound)
        }
    }

    @Test("An admin cannot delete their own account or drop their own admin rights here; names and flags change", arguments: TestEngine.allCases)
    func selfProtection(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let admin = try await app.adminToken()
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: admin))["user"] as? [String: Any])?["id"] as? String)
            try await app.call(.delete, "/api/v1/admin/users/\(me)", token: admin).expectProblem(.conflict)
            try await app.call(.patch, "/api/v1/admin/users/\(me)", body: AdminUserPatch(isAdmin: .value(false)), token: admin).expectProblem(
                .conflict)

            let other = try await app.userToken()
            let id = try #require(((try await app.call(.get, "/api/v1/me", token: other))["user"] as? [String: Any])?["id"] as? String)
            let promoted = try await app.call(
                .patch, "/api/v1/admin/users/\(id)", body: AdminUserPatch(name: .value("Co-admin"), isAdmin: .value(true)), token: admin)
            #expect(promoted["isAdmin"] as? Bool == true && promoted["name"] as? String == "Co-admin")
            #expect(try await app.call(.get, "/api/v1/admin/stats", token: other).status == .ok)
            // Hostile input: unknown fields, a name too long or with control characters, made-up ids.
            try await app.call(.patch, "/api/v1/admin/users/\(id)", json: ["password": "x"], token: admin).expectProblem(.badRequest)
            try await app.call(
                .patch, "/api/v1/admin/users/\(id)", body: AdminUserPatch(name: .value(String(repeating: "a", count: 81))), token: admin
            )
            .expectProblem(.unprocessableContent)
            try await app.call(.patch, "/api/v1/admin/users/\(id)", body: AdminUserPatch(name: .value("bell\u{7}")), token: admin).expectProblem(
                .unprocessableContent)
            for made in ["nobody", "%27%20OR%201=1--", String(repeating: "f", count: 5000)] {
                try await app.call(.delete, "/api/v1/admin/users/\(made)", token: admin).expectProblem(.notFound)
            }
        }
    }
}

/// The panel's pages over HTTP (the browser test drives the dialog): what it shows, its forms, the
/// confirmation page for browsers without scripts, and a quota change the organizer sees on their dashboard.
@Suite("Admin panel pages (ADM-4)")
struct AdminPanelPagesTests {
    @Test(
        "The panel lists accounts with usage, changes a quota the organizer then sees, and asks again before deleting", arguments: TestEngine.allCases
    )
    func panel(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let admin = try await app.adminToken()
            let organizer = try await app.userToken(email: "olivia@example.com")
            let event = try await app.createEvent(token: organizer)["id"] as! String
            let photo = try await TestImages.jpeg(width: 400, height: 300)
            #expect(try await app.upload(photo, event: event, token: organizer).status == .created)
            let olivia = try #require(((try await app.call(.get, "/api/v1/me", token: organizer))["user"] as? [String: Any])?["id"] as? String)

            let page = try await app.page(.get, "/admin", cookie: admin)
            #expect(page.status == .ok)
            #expect(page.text.contains("olivia@example.com") && page.text.contains("All media files for this user will be deleted."))
            #expect(page.text.contains(Quota.format(Int64(photo.count)) + " used"))
            let french = try await app.page(.get, "/admin", cookie: admin, headers: [.acceptLanguage: "fr"])
            #expect(french.text.contains("Tous les fichiers de cet utilisateur seront supprimés.") && french.text.contains("Continuer"))

            // A quota of a few kilobytes over what she uses: her dashboard warns her (over 90 %).
            let quota = String(format: "%.9f", Double(photo.count + 1000) / 1e9)
            #expect(try await app.page(.post, "/admin/users/\(olivia)/quota", cookie: admin, form: "quotaGB=\(quota)").status == .seeOther)
            let dashboard = try await app.page(.get, "/events", cookie: organizer)
            #expect(dashboard.text.contains("Your storage is almost full"), "\(dashboard.text)")
            #expect(dashboard.text.contains("of \(Quota.format(Int64(photo.count + 1000))) used"))
            try await app.upload(try await TestImages.jpeg(width: 401, height: 300), event: event, token: organizer).expectProblem(.forbidden)
            // The field shows the quota to the byte: saved again unchanged, it stays what it was (not "0.01").
            let shown = try await app.page(.get, "/admin", cookie: admin)
            let field = try #require(
                shown.text.components(separatedBy: "id=\"quota-\(olivia)\" name=\"quotaGB\" inputmode=\"decimal\" value=\"").dropFirst().first)
            let value = String(field.prefix { $0 != "\"" })
            #expect(try AdminPage.bytes(gigabytes: value, field: "quotaBytes") == Int64(photo.count + 1000), "\(value)")
            #expect(AdminPage.gigabytes(15_000_000) == "0.015" && AdminPage.gigabytes(50_000_000_000) == "50")
            #expect(try AdminPage.bytes(gigabytes: "0,015", field: "q") == 15_000_000 && (try? AdminPage.bytes(gigabytes: "1e3", field: "q")) == nil)
            let refused = try await app.page(.post, "/admin/users/\(olivia)/quota", cookie: admin, form: "quotaGB=lots")
            #expect(refused.status == .unprocessableContent && refused.text.contains("number of gigabytes"))

            // Registration off from the panel: the register page says so.
            #expect(try await app.page(.post, "/admin/settings", cookie: admin, form: "registration=off").status == .seeOther)
            #expect(try await app.page(.get, "/register").status == .forbidden)

            // Without the dialog's confirmation, deleting asks on a page of its own and deletes nothing.
            let ask = try await app.page(.post, "/admin/users/\(olivia)/delete", cookie: admin, form: "")
            #expect(ask.status == .ok && ask.text.contains("All media files for this user will be deleted."))
            #expect(try await app.call(.get, "/api/v1/me", token: organizer).status == .ok)
            #expect(try await app.page(.post, "/admin/users/\(olivia)/delete", cookie: admin, form: "confirmed=1").status == .seeOther)
            try await app.call(.get, "/api/v1/me", token: organizer).expectProblem(.unauthorized)
            #expect(try await app.storedFilesAfterRenders().isEmpty)
            let after = try await app.page(.get, "/admin?done=deleted", cookie: admin)
            #expect(after.text.contains("The account and all its files were deleted.") && !after.text.contains("olivia@example.com"))
        }
    }
}
