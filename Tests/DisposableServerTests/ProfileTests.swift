import DisposableAPI
import Foundation
import Hummingbird
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SOC-5: a display name and a picture, checked and re-encoded like photos; gone with the account.
@Suite("Profiles (SOC-5)")
struct ProfileTests {
    @Test(
        "A picture is re-encoded small without its metadata, seen by the event's guests, replaced, removed, and erased with the account",
        arguments: TestEngine.allCases)
    func avatar(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let olivia = try await app.userToken(email: "olivia@example.com")
            let guest = try await app.guestToken(code: try await app.createEvent(token: olivia)["code"] as! String)
            let picture = try await TestImages.jpeg(width: 1200, height: 900, exif: ["-GPSLatitude=48.85", "-GPSLatitudeRef=N", "-Artist=Olivia"])
            var headers: HTTPFields = [.contentType: "image/jpeg", .authorization: "Bearer \(olivia)"]
            let set = try await app.client.execute(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: ByteBuffer(data: picture)) {
                APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
            }
            #expect(set.status == .ok, "\(set.text)")
            let url = try #require(set.string("avatarURL"))
            #expect(url.hasSuffix("avatar.jpg?v=1"))

            let served = try await app.call(.get, url, token: guest)
            #expect(served.status == .ok && served.headers[.contentType] == "image/jpeg")
            let bytes = Data(buffer: served.body)
            #expect(TestImages.jpegSize(bytes).map { max($0.width, $0.height) } == 400)
            #expect(bytes.range(of: Data("Exif".utf8)) == nil && bytes.range(of: Data("Olivia".utf8)) == nil, "no metadata of the sent file")
            try await app.call(.get, url).expectProblem(.unauthorized)

            // The name, and hostile input.
            let renamed = try await app.call(.patch, "/api/v1/me", json: ["name": "Olivia M."], token: olivia)
            #expect(renamed["name"] as? String == "Olivia M." && renamed["avatarURL"] as? String == url)
            #expect(((try await app.call(.get, "/api/v1/me", token: olivia))["user"] as? [String: Any])?["name"] as? String == "Olivia M.")
            try await app.call(.patch, "/api/v1/me", json: ["name": "a\u{202E}b"], token: olivia).expectProblem(.unprocessableContent)
            try await app.call(.patch, "/api/v1/me", json: ["email": "x@example.com"], token: olivia).expectProblem(.badRequest)
            // A 7000×7000 PNG of a few KB, refused as a photo, is refused as a picture too.
            let bombFile = FileManager.default.temporaryDirectory.appendingPathComponent("bomb-\(UUID().uuidString).png")
            defer { try? FileManager.default.removeItem(at: bombFile) }
            #expect(try await runTool("/usr/bin/vips", ["black", bombFile.path, "7000", "7000"]).status == 0)
            let bomb = try Data(contentsOf: bombFile)
            #expect(bomb.count < 1_000_000)
            for (body, status) in [
                (Data("not a picture".utf8), HTTPResponse.Status.unsupportedMediaType), (picture.prefix(300), .unprocessableContent),
                (bomb, .unprocessableContent),
            ] {
                headers[.contentType] = "image/jpeg"
                let refused = try await app.client.execute(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: ByteBuffer(data: body)) {
                    APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
                }
                refused.expectProblem(status)
            }
            #expect(try await app.call(.get, url, token: guest).status == .ok, "a refused picture leaves the old one")

            // The account page shows it; removing it, then erasing the account, leaves no file.
            #expect(try await app.page(.get, "/account", cookie: olivia).text.contains(url))
            #expect(try await app.call(.delete, "/api/v1/me/avatar", token: olivia).status == .noContent)
            try await app.call(.get, url, token: guest).expectProblem(.notFound)
            _ = try await app.client.execute(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: ByteBuffer(data: picture)) { _ in }
            #expect(app.storedFiles().contains { $0.hasPrefix("avatars/") })
            #expect(try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "olivia@example.com"], token: olivia).status == .noContent)
            #expect(!app.storedFiles().contains { $0.hasPrefix("avatars/") })
        }
    }

    @Test(
        "A username is unique whatever its case and checked; light or dark pages whatever the device, on every page and from the profile page",
        arguments: TestEngine.allCases)
    func usernameAndAppearance(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let olivia = try await app.userToken(email: "olivia@example.com")
            let ben = try await app.userToken(email: "ben@example.com")
            let set = try await app.call(.patch, "/api/v1/me", json: ["username": " Olivia.M "], token: olivia)
            #expect(set.status == .ok && set.string("username") == "olivia.m" && set.string("appearance") == "system", "\(set.text)")
            #expect(((try await app.call(.get, "/api/v1/me", token: olivia))["user"] as? [String: Any])?["username"] as? String == "olivia.m")

            // Taken whatever the case; one's own may be sent again.
            #expect(
                try await app.call(.patch, "/api/v1/me", json: ["username": "OLIVIA.M"], token: ben).expectProblem(.conflict).contains("olivia.m"))
            #expect(try await app.call(.patch, "/api/v1/me", json: ["username": "olivia.m"], token: olivia).status == .ok)
            for bad in ["ab", String(repeating: "a", count: 31), "olivia m", ".olivia", "olivia.", "olívia", "ab\u{202E}cd", "<b>x</b>", "a/../b"] {
                try await app.call(.patch, "/api/v1/me", json: ["username": bad], token: ben).expectProblem(.unprocessableContent)
            }
            try await app.call(.patch, "/api/v1/me", json: ["username": 42], token: ben).expectProblem(.badRequest)
            #expect(((try await app.call(.get, "/api/v1/me", token: ben))["user"] as? [String: Any])?["username"] == nil, "nothing refused was kept")

            // Two accounts asking for the same one at once: one gets it, the other hears it is taken.
            async let first = app.call(.patch, "/api/v1/me", json: ["username": "party"], token: olivia)
            async let second = app.call(.patch, "/api/v1/me", json: ["username": "party"], token: ben)
            #expect(Set([try await first.status.code, try await second.status.code]) == [200, 409])
            // Blank removes it, and frees it for someone else.
            let holder = try await app.call(.get, "/api/v1/me", token: olivia).text.contains("\"party\"") ? olivia : ben
            let other = holder == olivia ? ben : olivia
            #expect(try await app.call(.patch, "/api/v1/me", json: ["username": ""], token: holder)["username"] == nil)
            #expect(try await app.call(.patch, "/api/v1/me", json: ["username": "party"], token: other).string("username") == "party")

            // Appearance: every page of the account follows it; "system" leaves it to the device.
            #expect(!(try await app.page(.get, "/library", cookie: ben).text.contains("data-theme")))
            #expect(try await app.call(.patch, "/api/v1/me", json: ["appearance": "dark"], token: ben).string("appearance") == "dark")
            let dark = try await app.page(.get, "/library", cookie: ben).text
            #expect(dark.contains("<html lang=\"en\" data-theme=\"dark\">") && dark.contains("<meta name=\"color-scheme\" content=\"dark\">"))
            #expect(!(try await app.page(.get, "/library", cookie: olivia).text.contains("data-theme")), "one account's choice is its own")
            try await app.call(.patch, "/api/v1/me", json: ["appearance": "sepia"], token: ben).expectProblem(.unprocessableContent)
            #expect(try await app.call(.patch, "/api/v1/me", json: ["appearance": "system"], token: ben).string("appearance") == "system")
            #expect(!(try await app.page(.get, "/moments", cookie: ben).text.contains("data-theme")))

            // The same from the profile page's forms.
            #expect(try await app.page(.post, "/account/appearance", cookie: ben, form: "appearance=light").status == .seeOther)
            let account = try await app.page(.get, "/account?done=appearance", cookie: ben).text
            #expect(account.contains("data-theme=\"light\"") && account.contains("value=\"light\" checked"))
            #expect(try await app.page(.post, "/account/appearance", cookie: ben, form: "appearance=%3Cscript%3E").status == .unprocessableContent)
            #expect(try await app.call(.patch, "/api/v1/me", json: ["username": "olivia.x"], token: olivia).status == .ok)
            let refused = try await app.page(.post, "/account/username", cookie: ben, form: "username=OLIVIA.X")
            #expect(refused.status == .conflict && refused.text.contains("already taken"))
            #expect(try await app.page(.post, "/account/username", cookie: ben, form: "username=Ben_B").status == .seeOther)
            #expect(try await app.page(.get, "/account", cookie: ben).text.contains("@ben_b"))
        }
    }

    @Test(
        "Pictures beside their photos — gallery, photo, upload answer, change feed — and in the guest and account lists; changed at once",
        arguments: TestEngine.allCases)
    func picturesBesidePhotos(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let olivia = try await app.userToken(email: "olivia@example.com")
            let event = try await app.createEvent(token: olivia)
            let (eventID, code) = (event["id"] as! String, event["code"] as! String)
            // Ben joins signed in to his account; Maggie has no account.
            let ben = try await app.userToken(email: "ben@example.com")
            #expect(try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code, name: "Ben"), token: ben).status == .created)
            let maggie = try await app.guestToken(code: code, name: "Maggie")
            let oliviaURL = try await Self.setPicture(app, token: olivia)
            let benURL = try await Self.setPicture(app, token: ben)

            let base = try await TestImages.jpeg(width: 64, height: 48)
            var answers: [String: String?] = [:]
            for (who, token) in [("Olivia", olivia), ("Ben", ben), ("Maggie", maggie)] {
                let uploaded = try await app.upload(base + Data(who.utf8), event: eventID, token: token)
                #expect(uploaded.status == .created, "\(uploaded.text)")
                answers[who] = (uploaded.json["shooter"] as? [String: Any])?["avatarURL"] as? String
                _ = try await app.waitUntilProcessed(try #require(uploaded.string("id")), token: token)
            }
            #expect(answers["Olivia"] == oliviaURL && answers["Ben"] == benURL && answers["Maggie"] == .some(nil), "the upload answer")

            /// Shooter name → picture, as the gallery and the feed show them to `token`.
            func pictures(_ token: String) async throws -> (gallery: [String: String], feed: [String: String]) {
                func byName(_ photos: [[String: Any]]) -> [String: String] {
                    photos.reduce(into: [:]) { pictures, photo in
                        let shooter = photo["shooter"] as? [String: Any]
                        pictures[shooter?["name"] as? String ?? "?"] = shooter?["avatarURL"] as? String ?? "none"
                    }
                }
                let page = try await app.call(.get, "/api/v1/events/\(eventID)/photos", token: token)
                let feed = try await app.call(
                    .get, "/api/v1/events/\(eventID)/changes?since=0", token: token, headers: [.accept: "application/json"])
                let added = (feed["items"] as? [[String: Any]] ?? []).compactMap { ($0["change"] as? [String: Any])?["photo"] as? [String: Any] }
                return (byName(page["items"] as? [[String: Any]] ?? []), byName(added))
            }
            let expected = ["Olivia": oliviaURL, "Ben": benURL, "Maggie": "none"]
            for token in [maggie, olivia] {
                let seen = try await pictures(token)
                #expect(seen.gallery == expected, "\(seen.gallery)")
                #expect(seen.feed == expected, "\(seen.feed)")
            }
            let photoID = try #require(
                (try await app.call(.get, "/api/v1/events/\(eventID)/photos", token: maggie)["items"] as? [[String: Any]])?
                    .first { ($0["shooter"] as? [String: Any])?["name"] as? String == "Ben" }?["id"] as? String)
            let single = try await app.call(.get, "/api/v1/photos/\(photoID)", token: maggie)
            #expect((single["shooter"] as? [String: Any])?["avatarURL"] as? String == benURL)
            #expect(try await app.call(.get, benURL, token: maggie).status == .ok, "a guest without an account sees the picture")

            // The organizer's guest list, the admin's account list.
            let guests = try await app.call(.get, "/api/v1/events/\(eventID)/guests", token: olivia)["items"] as? [[String: Any]] ?? []
            #expect(guests.first { $0["name"] as? String == "Ben" }?["avatarURL"] as? String == benURL)
            #expect(guests.first { $0["name"] as? String == "Maggie" }?["avatarURL"] == nil)
            #expect(try await app.page(.get, "/events/\(eventID)", cookie: olivia).text.contains(benURL))
            let admin = try await app.adminToken()
            let accounts = try await app.call(.get, "/api/v1/admin/users", token: admin)["items"] as? [[String: Any]] ?? []
            #expect(accounts.first { $0["email"] as? String == "ben@example.com" }?["avatarURL"] as? String == benURL)

            // A new picture shows at once on a page read before (its address changes); a removed one is gone.
            let newBenURL = try await Self.setPicture(app, token: ben)
            #expect(newBenURL != benURL)
            #expect(try await pictures(maggie).gallery["Ben"] == newBenURL)
            #expect(try await app.call(.delete, "/api/v1/me/avatar", token: olivia).status == .noContent)
            let after = try await pictures(maggie)
            #expect(after.gallery["Olivia"] == "none" && after.feed["Olivia"] == "none")
        }
    }

    @Test(
        "Pages show times in the account's time zone over the browser's; chosen on My account, blank follows the browser",
        arguments: TestEngine.allCases)
    func timeZone(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let ben = try await app.userToken(email: "ben@example.com")
            // Ben's browser is in Tokyo; his sessions' times on My account are rendered where he asks.
            func account() async throws -> (html: String, shown: String, at: Date) {
                let html = try await app.page(.get, "/account", headers: [.cookie: "disposable_session=\(ben); disposable_tz=Asia%2FTokyo"]).text
                let time = try #require(html.firstMatch(of: /<time datetime="([^"]+)">([^<]+)<\/time>/))
                return (html, String(time.output.2), try Date(String(time.output.1), strategy: .iso8601))
            }
            func shown(_ date: Date, in zone: String) -> String {
                let formatter = DateFormatter()
                formatter.locale = WebLanguage.en.locale
                formatter.timeZone = TimeZone(identifier: zone)
                formatter.dateStyle = .medium
                formatter.timeStyle = .short
                return formatter.string(from: date)
            }
            let browser = try await account()
            #expect(browser.shown == shown(browser.at, in: "Asia/Tokyo") && !browser.html.contains("data-time-zone"))
            #expect(browser.html.contains("<option value=\"\" selected>"))

            #expect(try await app.page(.post, "/account/time-zone", cookie: ben, form: "timeZone=America%2FNew_York").status == .seeOther)
            let chosen = try await account()
            #expect(chosen.shown == shown(chosen.at, in: "America/New_York"), "the account's zone wins over the browser's")
            #expect(chosen.html.contains("<html lang=\"en\" data-time-zone=\"America/New_York\">"), "the scripts are told it")
            #expect(chosen.html.contains("<option value=\"America/New_York\" selected>"))

            for bad in ["Mars/Olympus", "%3Cscript%3E", "Europe%2FParis%00", String(repeating: "A/", count: 40)] {
                let refused = try await app.page(.post, "/account/time-zone", cookie: ben, form: "timeZone=\(bad)")
                #expect(refused.status == .unprocessableContent && refused.text.contains("Europe/Paris"), "\(bad)")
            }
            #expect(try await app.page(.post, "/account/time-zone", cookie: ben, form: "timeZone=").status == .seeOther)
            let forgotten = try await account()
            #expect(forgotten.shown == shown(forgotten.at, in: "Asia/Tokyo") && !forgotten.html.contains("data-time-zone"))
        }
    }

    static func setPicture(_ app: TestApp, token: String) async throws -> String {
        let picture = try await TestImages.jpeg(width: 300, height: 300)
        let set = try await app.client.execute(
            uri: "/api/v1/me/avatar", method: .put, headers: [.contentType: "image/jpeg", .authorization: "Bearer \(token)"],
            body: ByteBuffer(data: picture)
        ) { APIResponse(status: $0.status, headers: $0.headers, body: $0.body) }
        #expect(set.status == .ok, "\(set.text)")
        return try #require(set.string("avatarURL"))
    }
}
