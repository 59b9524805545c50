import DisposableAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The pages' forms, their words and their escaping.
extension WebPagesTests {
    @Test("Joining by the form: terms stored with their version, cookies set, then the camera")
    func joinForm() async throws {
        try await TestApp.run(.sqlite) { app in
            let event = try await app.createEvent(token: try await app.userToken())
            let code = event["code"] as! String
            let refused = try await app.page(.post, "/e/\(code)/join", form: "name=Maggie")
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("Please accept the terms"))
            let joined = try await app.page(.post, "/e/\(code)/join", form: "name=Maggie&terms=\(TermsOfUse.version)")
            #expect(joined.status == .seeOther)
            #expect(joined.headers[.location] == "/e/\(code)/camera?welcome=1")
            let cookies = joined.headers[values: .setCookie]
            let session = try #require(cookies.first { $0.hasPrefix("disposable_session=") })
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Lax"))
            #expect(cookies.contains { $0.hasPrefix("disposable_joined=") })
            let stored = try await app.services.database.sql { db in
                try await db.raw("SELECT terms_version, terms_accepted_at FROM guests WHERE name = 'Maggie'").first()
            }
            #expect(try stored?.decode(column: "terms_version", as: String.self) == TermsOfUse.version)
            #expect(try stored?.decode(column: "terms_accepted_at", as: Int64?.self) != nil)
        }
    }

    @Test("Wrong codes get a friendly page, not a problem document")
    func unknownCode() async throws {
        try await TestApp.run(.sqlite) { app in
            let response = try await app.page(.get, "/e/ZZZZ-ZZZZ", headers: [.acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.5"])
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(response.text.contains("Nous ne trouvons pas cet événement"))
            #expect(response.text.contains("<html lang=\"fr\">"))
        }
    }

    @Test("Names and event names are escaped everywhere they are shown")
    func escaping() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let payload = "<img src=x onerror=alert(1)>"
            let event = try await app.createEvent(token: organizer, ["name": "Party \(payload)", "description": "\"><script>alert(2)</script>"])
            let code = event["code"] as! String
            let joined = try await app.page(.post, "/e/\(code)/join", form: "name=%3Cscript%3Ealert(3)%3C%2Fscript%3E&terms=\(TermsOfUse.version)")
            let cookies = joined.headers[values: .setCookie].map { $0.split(separator: ";")[0] }.joined(separator: "; ")
            for path in ["/e/\(code)", "/e/\(code)/camera", "/e/\(code)/continue", "/"] {
                let page = try await app.page(.get, path, headers: [.cookie: cookies])
                #expect(page.status == .ok, "\(path)")
                #expect(!page.text.contains("<img src=x"), "\(path) reflects the event name unescaped")
                #expect(!page.text.contains("<script>alert"), "\(path) reflects a payload unescaped")
            }
            let manage = try await app.page(.get, "/events/\(event["id"] as! String)", cookie: organizer)
            #expect(manage.status == .ok)
            #expect(!manage.text.contains("<img src=x") && !manage.text.contains("<script>alert"))
            #expect(manage.text.contains("&lt;img src=x onerror=alert(1)&gt;"))
        }
    }

    @Test(
        "Deleting an event by typing its name forgives what a phone's keyboard changes (case, curly apostrophes, spaces); a wrong name stays in the field"
    )
    func deleteByName() async throws {
        #expect(DeletionConfirmation.matches(typed: "  emma  &  LEO’S “Wedding” ", name: "Emma & Leo's \"wedding\""))
        #expect(DeletionConfirmation.matches(typed: "Cafe\u{301}", name: "Café"))
        #expect(!DeletionConfirmation.matches(typed: "Emma & Leon's wedding", name: "Emma & Leo's wedding"))
        #expect(!DeletionConfirmation.matches(typed: "  ", name: " "))
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let same: HTTPFields = [.init("Sec-Fetch-Site")!: "same-origin"]
            for (typed, status) in [("Emma+%26+Leon", HTTPResponse.Status.unprocessableContent), ("emma+%26+leo%E2%80%99s++Wedding", .seeOther)] {
                let event = try await app.createEvent(token: organizer, ["name": "Emma & Leo's wedding"])
                let answer = try await app.page(
                    .post, "/events/\(event["id"] as! String)/delete", cookie: organizer, form: "confirm=\(typed)", headers: same)
                #expect(answer.status == status)
                if status != .seeOther { #expect(answer.text.contains(#"value="Emma &amp; Leon""#), "what was typed stays") }
            }
            #expect((try await app.call(.get, "/api/v1/events", token: organizer)["items"] as? [Any])?.count == 1)
        }
    }

    @Test("SEC-3: a write from another site is refused, even with the cookie")
    func crossSiteWrites() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let evil: HTTPFields = [.origin: "https://evil.example", .cookie: "disposable_session=\(organizer)"]
            let deleted = try await app.page(.post, "/events/\(id)/delete", form: "confirm=Ana+%26+Ben%27s+wedding", headers: evil)
            #expect(deleted.status == .forbidden)
            var fetchHeaders = evil
            fetchHeaders[.contentType] = "application/json"
            let patched = try await app.call(.patch, "/api/v1/events/\(id)", raw: "{\"name\": \"Hacked\"}", headers: fetchHeaders)
            patched.expectProblem(.forbidden)
            let site: HTTPFields = [.init("Sec-Fetch-Site")!: "cross-site", .cookie: "disposable_session=\(organizer)"]
            #expect(try await app.page(.post, "/events/\(id)/end", headers: site).status == .forbidden)
            #expect(try await app.call(.get, "/api/v1/events/\(id)", token: organizer).string("name") == "Ana & Ben's wedding")
            // Our own pages are fine (same-origin form posts are exercised for real in the Chromium test).
            let own = try await app.page(
                .post, "/events/\(id)/end",
                headers: [
                    .init("Sec-Fetch-Site")!: "same-origin",
                    .cookie: "disposable_session=\(organizer)",
                ])
            #expect(own.status == .seeOther)
        }
    }

    @Test("Typed codes are forgiving, a wrong one comes back to be corrected, and counts read as words")
    func typedCodesAndPlurals() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let code = try #require(try await app.createEvent(token: organizer, ["name": "Party"])["code"] as? String)
            let typed = code.lowercased().replacingOccurrences(of: "-", with: " ").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await app.page(.get, "/join?code=\(typed)").headers[.location] == "/e/\(code)")
            // As the home page's form sends "786u 458k": the space as "+".
            let spaced = code.lowercased().replacingOccurrences(of: "-", with: "+")
            #expect(try await app.page(.get, "/join?code=\(spaced)").headers[.location] == "/e/\(code)")
            let wrong = try await app.page(.get, "/join?code=ABC%3Cb%3E")
            let back = try #require(wrong.headers[.location])
            #expect(back.hasPrefix("/?error=code&code=ABC"))
            let home = try await app.page(.get, String(back.prefix { $0 != "#" }))
            #expect(home.text.contains("value=\"ABC&lt;b&gt;\""), "kept, escaped")
            _ = try await app.guestToken(code: code)
            #expect(try await app.page(.get, "/events", cookie: organizer).text.contains("1 guest<"))
            let french = try await app.page(.get, "/events", cookie: organizer, headers: [.acceptLanguage: "fr"])
            #expect(french.text.contains("1 invité<"))
            // An event that is over invites to see the photos, not to shoot.
            #expect(try await app.page(.get, "/e/\(code)").text.contains("Join and start shooting"))
            app.clock.advance(by: 9 * 86_400)
            app.services.recentReads.forgetAll()
            #expect(try await app.page(.get, "/e/\(code)").text.contains("Join to see the photos"))
        }
    }

    @Test("The settings form, sent back untouched after the first photo, saves without tripping the EV-2 lock")
    func untouchedSettingsForm() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["reveal": ["mode": "at-end"], "maxGuests": 50])
            let id = event["id"] as! String
            let guest = try await app.guestToken(code: event["code"] as! String)
            #expect(try await app.upload(try await TestImages.jpeg(), event: id, token: guest).status == .created)
            let page = try await app.page(.get, "/events/\(id)", cookie: organizer)
            // What a browser submits: every enabled field of the form with its current value (locked ones are disabled).
            let name = try #require(Self.value(of: "name", in: page.text))
            let endsAt = try #require(Self.value(of: "endsAt", in: page.text))
            let saved = try await app.page(
                .post, "/events/\(id)/settings", cookie: organizer,
                form:
                    "name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&description=New+words&endsAt=\(endsAt)&allowGuestDownloads=on"
            )
            #expect(saved.status == .seeOther, "\(saved.text.prefix(2000))")
            let after = try await app.call(.get, "/api/v1/events/\(id)", token: organizer)
            #expect(after.string("description") == "New words")
            #expect(after.string("endsAt") == event["endsAt"] as? String)
            // A locked field sent changed is refused by its name, on the page.
            let locked = try await app.page(.post, "/events/\(id)/settings", cookie: organizer, form: "name=x&endsAt=not-a-time")
            #expect(locked.status == .unprocessableContent)
        }
    }

    @Test("The home page offers to create an account only while registration is open")
    func homeOffersRegistration() async throws {
        try await TestApp.run(.sqlite) { app in
            #expect(try await app.page(.get, "/").text.contains("href=\"/register\""))
            let admin = try await app.adminToken()
            let closed = try await app.call(
                .patch, "/api/v1/admin/settings", body: InstanceSettingsJSON(registrationEnabled: false, defaultQuotaBytes: nil), token: admin)
            #expect(closed.status == .ok)
            let home = try await app.page(.get, "/")
            #expect(home.status == .ok && !home.text.contains("href=\"/register\"") && home.text.contains("href=\"/login\""))
        }
    }

    @Test("A form's error names the field as the reader sees it, never the API's name for it")
    func fieldErrorsInWords() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let form = "name=Party&shotsPerGuest=0&revealMode=now"
            let english = try await app.page(.post, "/events/new", cookie: organizer, form: form)
            #expect(english.status == .unprocessableContent)
            #expect(english.text.contains("must be between 1 and 1000") && !english.text.contains("(shotsPerGuest)"))
            let french = try await app.page(.post, "/events/new", cookie: organizer, form: form, headers: [.acceptLanguage: "fr"])
            #expect(!french.text.contains("(shotsPerGuest)") && !french.text.contains("shotsPerGuest)"))
        }
    }

    @Test("The 404 page has the signed-in menu for someone signed in; the goodbye page after erasing, the signed-out one")
    func menusOnErrorAndGoodbye() async throws {
        try await TestApp.run(.sqlite) { app in
            let email = "leaving@example.com"
            let user = try await app.userToken(email: email)
            let missing = try await app.page(.get, "/no-such-page", cookie: user, headers: [.accept: "text/html"])
            #expect(missing.status == .notFound && missing.text.contains("action=\"/logout\""))
            let anonymous = try await app.page(.get, "/no-such-page", headers: [.accept: "text/html"])
            #expect(anonymous.status == .notFound && !anonymous.text.contains("action=\"/logout\""))
            let goodbye = try await app.page(.post, "/my-data/delete", cookie: user, form: "confirmEmail=\(email)")
            #expect(goodbye.text.contains("Goodbye") && !goodbye.text.contains("action=\"/logout\""), "\(goodbye.status)")
        }
    }

    @Test("An organizer accepts the terms to register; the version is kept with the account")
    func registrationTerms() async throws {
        try await TestApp.run(.sqlite) { app in
            let form = "email=new%40example.com&password=password1&name=New"
            let refused = try await app.page(.post, "/register", form: form)
            #expect(refused.status == .unprocessableContent && refused.text.contains("Please accept the terms"))
            #expect(try await app.page(.get, "/register").text.contains("name=\"terms\" value=\"\(TermsOfUse.version)\""))
            let registered = try await app.page(.post, "/register", form: form + "&terms=\(TermsOfUse.version)")
            #expect(registered.status == .seeOther)
            let stored = try await app.services.database.sql { db in
                try await db.raw("SELECT terms_version, terms_accepted_at FROM users WHERE email = 'new@example.com'").first()
            }
            #expect(try stored?.decode(column: "terms_version", as: String?.self) == TermsOfUse.version)
            #expect(try stored?.decode(column: "terms_accepted_at", as: Int64?.self) != nil)
        }
    }

    static func value(of name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\"") else { return nil }
        let rest = html[range.upperBound...]
        guard let start = rest.range(of: "value=\"") else { return nil }
        let value = rest[start.upperBound...].prefix { $0 != "\"" }
        return String(value).replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("Every string a template uses exists in English and French, and French has every English string")
    func catalogues() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let root = sources.appendingPathComponent("DisposableWeb/Web")
        let decode = { (language: String) throws -> [String: String] in
            try JSONDecoder().decode(
                [String: String].self, from: Data(contentsOf: sources.appendingPathComponent("DisposableFeatures/Words/Strings/\(language).json")))
        }
        let english = try decode("en"), french = try decode("fr")
        #expect(Set(english.keys).subtracting(french.keys).isEmpty, "missing in French: \(Set(english.keys).subtracting(french.keys).sorted())")
        let templates = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Templates").path)
        var used = Set<String>()
        for name in templates {
            let text = try String(contentsOf: root.appendingPathComponent("Templates/\(name)"), encoding: .utf8)
            let regex = try Regex(#"\{\{[#^/]?t\.([a-z0-9_]+)\}\}"#)
            for match in text.matches(of: regex) { used.insert(String(text[match.output[1].range!])) }
        }
        #expect(used.count > 100)
        #expect(used.subtracting(english.keys).isEmpty, "templates use unknown strings: \(used.subtracting(english.keys).sorted())")
        // The scripts' `t('key')` read `js_key` (a dialog said "cancel", the key, for want of one).
        var scripted = Set<String>()
        let scripts = root.appendingPathComponent("Static")
        for name in try FileManager.default.contentsOfDirectory(atPath: scripts.path) where name.hasSuffix(".js") {
            let text = try String(contentsOf: scripts.appendingPathComponent(name), encoding: .utf8)
            for match in text.matches(of: try Regex(#"\bt\('([a-z0-9_]+)'"#)) { scripted.insert("js_" + String(text[match.output[1].range!])) }
        }
        #expect(scripted.count > 50)
        #expect(scripted.subtracting(english.keys).isEmpty, "scripts use unknown strings: \(scripted.subtracting(english.keys).sorted())")
    }

    @Test(
        "Language: the switcher's cookie first, then Accept-Language by quality, else English",
        arguments: [
            (nil, "fr-FR,fr;q=0.9,en;q=0.8", "fr"), (nil, "de-DE, en;q=0.5, fr;q=0.7", "fr"), (nil, "de", "en"), (nil, nil, "en"),
            ("en", "fr", "en"), ("fr", nil, "fr"), ("xx", "fr", "fr"),
        ] as [(String?, String?, String)])
    func language(cookie: String?, accept: String?, expected: String) {
        #expect(WebLanguage.of(cookie: cookie, acceptLanguage: accept).rawValue == expected)
    }
}
