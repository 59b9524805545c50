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

/// SUP-4: what is stored about me, its export (my photos as I sent them + data.json), and erasing it.
@Suite("My data (SUP-4)")
struct MyDataTests {
    @Test(
        "An account exports its photos byte for byte and its data, then deletes itself: no file and no row of it remain",
        arguments: TestEngine.allCases)
    func account(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: Olivia organizes a party (2 photos, one with GPS) and, signed in, shoots one at Ben's
            let olivia = try await app.userToken(email: "olivia@example.com")
            let party = try await app.createEvent(token: olivia, ["name": "Olivia's party"])
            let partyID = party["id"] as! String
            var originals: [String: Data] = [:]
            for exif in [["-GPSLatitude=48.85", "-GPSLatitudeRef=N"], []] {
                let bytes = try await TestImages.jpeg(width: 300 + exif.count, height: 200, exif: exif)
                let id = try #require(try await app.upload(bytes, event: partyID, token: olivia).string("id"))
                originals[id] = bytes
            }
            let ben = try await app.userToken(email: "ben@example.com")
            let bens = try await app.createEvent(token: ben, ["name": "Ben's wedding"])
            let joined = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: bens["code"] as! String, name: "Olivia"), token: olivia)
            #expect(joined.status == .created)
            let atBens = try await TestImages.jpeg(width: 320, height: 240)
            let atBensID = try #require(try await app.upload(atBens, event: bens["id"] as! String, token: olivia).string("id"))
            originals[atBensID] = atBens
            let bensOwn = try #require(
                try await app.upload(try await TestImages.jpeg(width: 330), event: bens["id"] as! String, token: ben).string("id"))
            _ = try await app.call(.post, "/api/v1/support/tickets", json: ["subject": "Hello", "message": "A question"], token: olivia)
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: olivia))["user"] as? [String: Any])?["id"] as? String)
            // Her own library too, one photo of it in the trash.
            let kept = try await TestImages.jpeg(width: 340, height: 240)
            let trashed = try await TestImages.jpeg(width: 350, height: 240)
            _ = try await app.uploadToLibrary(kept, token: olivia, fileName: "IMG_0001.JPG")
            let trashedID = try #require(try await app.uploadToLibrary(trashed, token: olivia, fileName: "IMG_0002.JPG").string("id"))
            #expect(try await app.call(.delete, "/api/v1/library/assets/\(trashedID)", token: olivia).status == .noContent)

            // And a moment (CAP-3), and her picture.
            #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Packed the car"), token: olivia).status == .created)
            let face = try await app.call(
                .put, "/api/v1/me/avatar", token: olivia, headers: [.contentType: "image/jpeg"],
                body: try await TestImages.jpeg(width: 500, height: 500))
            #expect(face.status == .ok, "\(face.text)")
            let picture = try #require(try await app.services.blobs.contents(key: ProfileService.key(me)))

            // And a phone's app password for WebDAV.
            let secret = try await app.appPassword(token: olivia, name: "Olivia's phone")

            // MUT 1: the export
            let export = try await app.call(.get, "/api/v1/me/export", token: olivia)
            #expect(export.status == .ok && export.headers[.contentType] == "application/zip")
            let zip = try writeTemporaryFile(Data(buffer: export.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: zip) }
            #expect(try await runTool("/usr/bin/unzip", ["-tq", zip.path]).status == 0)
            let data = try JSONSerialization.jsonObject(with: try await extract(zip, "data.json")) as? [String: Any] ?? [:]
            #expect(data["kind"] as? String == "user")
            #expect((data["account"] as? [String: Any])?["email"] as? String == "olivia@example.com")
            #expect((data["events"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Olivia's party"])
            #expect((data["memberships"] as? [[String: Any]])?.map { $0["eventName"] as? String } == ["Ben's wedding"])
            #expect((data["tickets"] as? [[String: Any]])?.count == 1 && (data["sessions"] as? [[String: Any]])?.count == 1)
            #expect((data["moments"] as? [[String: Any]])?.map { $0["text"] as? String } == ["Packed the car"])
            #expect((data["appPasswords"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Olivia's phone"])
            #expect(!String(decoding: try await extract(zip, "data.json"), as: UTF8.self).contains(secret.replacingOccurrences(of: "-", with: "")))
            let listed = try #require(data["photos"] as? [[String: Any]])
            #expect(Set(listed.compactMap { $0["id"] as? String }) == Set(originals.keys), "my own photos, not Ben's")
            for photo in listed {
                // As I sent them: the location stays in my own copy.
                let file = try await extract(zip, try #require(photo["file"] as? String))
                #expect(file == originals[photo["id"] as? String ?? ""])
            }
            let library = try #require(data["library"] as? [[String: Any]])
            #expect(Set(library.compactMap { $0["file"] as? String }) == ["library/IMG_0001.JPG", "library/IMG_0002.JPG"])
            #expect(library.first { $0["inTrash"] as? Bool == true }?["id"] as? String == trashedID)
            #expect(try await extract(zip, "library/IMG_0001.JPG") == kept)
            #expect(try await extract(zip, "library/IMG_0002.JPG") == trashed)
            #expect(try await extract(zip, "profile-picture.jpg") == Data(buffer: picture), "her picture is exported too")

            // MUT 2: deleting, first without the right address
            try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "someone@example.com"], token: olivia).expectProblem(
                .unprocessableContent)
            #expect(try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "Olivia@example.com"], token: olivia).status == .noContent)

            // validate: no row and no file of hers; Ben's event and photo untouched
            try await app.call(.get, "/api/v1/me", token: olivia).expectProblem(.unauthorized)
            let mine = originals.keys.joined(separator: "','")
            let leftovers = try await app.services.database.sql { db in
                var counts: [String: Int] = [:]
                for (name, sql) in [
                    ("users", "SELECT COUNT(*) AS n FROM users WHERE id = '\(me)'"),
                    ("events", "SELECT COUNT(*) AS n FROM events WHERE organizer_id = '\(me)'"),
                    ("guests", "SELECT COUNT(*) AS n FROM guests WHERE user_id = '\(me)' OR name = 'Olivia'"),
                    ("photos", "SELECT COUNT(*) AS n FROM photos WHERE id IN ('\(mine)')"),
                    ("tokens", "SELECT COUNT(*) AS n FROM access_tokens WHERE user_id = '\(me)'"),
                    ("tickets", "SELECT COUNT(*) AS n FROM support_tickets WHERE user_id = '\(me)' OR subject = 'Hello'"),
                    ("resets", "SELECT COUNT(*) AS n FROM password_resets WHERE user_id = '\(me)'"),
                    ("library", "SELECT COUNT(*) AS n FROM library_assets WHERE user_id = '\(me)'"),
                ] {
                    counts[name] = try await db.raw(SQLQueryString(sql)).first()!.decode(column: "n", as: Int.self)
                }
                return counts
            }
            #expect(leftovers.values.allSatisfy { $0 == 0 }, "\(leftovers)")
            let files = app.storedFiles()
            #expect(!files.contains { $0.hasPrefix("events/\(partyID)") || $0.contains(atBensID) || $0.hasPrefix("library/") }, "\(files)")
            #expect(files.contains { $0.contains(bensOwn) })
            #expect(try await app.call(.get, "/api/v1/photos/\(bensOwn)", token: ben).status == .ok)
        }
    }

    @Test(
        "A guest sees and exports their data, then deletes all their photos in the event; the page does the same in French",
        arguments: TestEngine.allCases)
    func guest(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let f = try await UploadTests.fixture(app)
            let mine = try await TestImages.jpeg(width: 210, height: 150)
            let id = try #require(try await app.upload(mine, event: f.event, token: f.guest).string("id"))
            let others = try #require(try await app.upload(try await TestImages.jpeg(width: 220), event: f.event, token: f.organizer).string("id"))

            let export = try await app.call(.get, "/api/v1/me/export", token: f.guest)
            let zip = try writeTemporaryFile(Data(buffer: export.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: zip) }
            let listing = try await runTool("/usr/bin/unzip", ["-Z1", zip.path]).output.split(separator: "\n").map(String.init)
            #expect(listing == ["data.json", "photos/Maggie1.jpg"])
            #expect(try await extract(zip, "photos/Maggie1.jpg") == mine)
            let data = try JSONSerialization.jsonObject(with: try await extract(zip, "data.json")) as? [String: Any] ?? [:]
            #expect(data["kind"] as? String == "guest" && (data["guest"] as? [String: Any])?["name"] as? String == "Maggie")

            let page = try await app.page(.get, "/my-data", cookie: f.guest, headers: [.acceptLanguage: "fr"])
            #expect(page.text.contains("1 photo prise") && page.text.contains("Supprimer mes photos"))
            let unticked = try await app.page(.post, "/my-data/delete", cookie: f.guest, form: "")
            #expect(unticked.status == .unprocessableContent)
            #expect(try await app.page(.post, "/my-data/delete", cookie: f.guest, form: "confirm=on").status == .seeOther)

            try await app.call(.get, "/api/v1/photos/\(id)", token: f.organizer).expectProblem(.notFound)
            #expect(!app.storedFiles().contains { $0.contains(id) })
            #expect(try await app.call(.get, "/api/v1/photos/\(others)", token: f.organizer).status == .ok)
            #expect(try await app.call(.get, "/api/v1/me", token: f.guest).status == .ok, "still in the event")
            #expect(try await app.call(.delete, "/api/v1/me", token: f.guest).status == .noContent, "nothing left: still fine")
            try await app.call(.get, "/api/v1/me/export").expectProblem(.unauthorized)
            #expect(try await app.page(.get, "/my-data").text.contains("nothing is stored about you here"))
        }
    }

    @Test("A guest of two events on one phone sees both on My data, each with a way to its own data")
    func twoEvents() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let first = try await app.createEvent(token: organizer, ["name": "Leo's baptism"])
            let second = try await app.createEvent(token: organizer, ["name": "Garden party"])
            var phone = LeavingTests.Phone()
            _ = try await LeavingTests.join(&phone, app, code: first["code"] as! String, name: "Maggie")
            _ = try await LeavingTests.join(&phone, app, code: second["code"] as! String, name: "Maggie")
            let page = try await phone.page(app, .get, "/my-data")
            #expect(page.text.contains("Garden party"), "the event this phone is in now")
            #expect(page.text.contains("Leo&#39;s baptism") || page.text.contains("Leo's baptism"), "and the other one")
            #expect(page.text.contains("href=\"/e/\(first["code"] as! String)\""))
        }
    }
}
