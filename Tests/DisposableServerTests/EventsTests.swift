import DisposableAPI
import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Events (EV-1, EV-2, EV-3, EV-4)")
struct EventsTests {
    @Test("Creating with only a name applies every default", arguments: TestEngine.allCases)
    func defaults(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let event = try await app.createEvent(token: token)
            let now = app.clock.now
            #expect(event["name"] as? String == "Ana & Ben's wedding")
            #expect(event["status"] as? String == "live")
            #expect(event["shotsPerGuest"] as? Int == 27)
            #expect((event["reveal"] as? [String: Any])?["mode"] as? String == "now")
            #expect(event["allowLibraryUploads"] as? Bool == true)
            #expect(event["allowGuestDownloads"] as? Bool == true)
            #expect(event["hasPassword"] as? Bool == false)
            #expect(event["maxGuests"] == nil)
            #expect(event["role"] as? String == "organizer")
            let startsAt = try #require(parseTime(event["startsAt"]))
            let endsAt = try #require(parseTime(event["endsAt"]))
            let deletesAt = try #require(parseTime(event["deletesAt"]))
            #expect(startsAt == now)
            #expect(endsAt.timeIntervalSince(startsAt) == 8 * 86_400, "default duration is 8 days")
            #expect(deletesAt.timeIntervalSince(endsAt) == 30 * 86_400, "kept 30 days after the end")
            let code = try #require(event["code"] as? String)
            #expect(code.wholeMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/) != nil, "\(code)")
            // The QR code's link: the code, and the key that spares its holders the guess limiter.
            let joinURL = try #require(event["joinURL"] as? String)
            #expect(
                joinURL.wholeMatch(of: /https:\/\/disposable\.test\/e\/[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}\?k=[A-Za-z0-9_-]{22}/) != nil, "\(joinURL)"
            )
            #expect(joinURL.hasPrefix("https://disposable.test/e/\(code)?k="))
        }
    }

    /// Every parameter's bounds: the refusal names the field.
    static var invalidSettings: [([String: Any], String)] {
        [
            ([:], "name"),
            (["name": "   "], "name"),
            (["name": String(repeating: "x", count: 81)], "name"),
            (["name": "ok", "description": String(repeating: "x", count: 2001)], "description"),
            (["name": "ok", "durationHours": 0], "durationHours"),
            (["name": "ok", "durationHours": 721], "durationHours"),
            (["name": "ok", "shotsPerGuest": 0], "shotsPerGuest"),
            (["name": "ok", "shotsPerGuest": 1001], "shotsPerGuest"),
            (["name": "ok", "maxGuests": 0], "maxGuests"),
            (["name": "ok", "startsAt": "yesterday"], "startsAt"),
            (["name": "ok", "startsAt": "2020-01-01T00:00:00Z"], "startsAt"),
            (["name": "ok", "reveal": ["mode": "sometimes"]], "reveal.mode"),
            (["name": "ok", "reveal": ["mode": "at"]], "reveal.at"),
            (["name": "ok", "reveal": ["mode": "now", "at": "2030-01-01T00:00:00Z"]], "reveal.at"),
            (["name": "ok", "password": String(repeating: "p", count: 200)], "password"),
        ]
    }

    @Test("Invalid settings are refused with a message naming the field", arguments: TestEngine.allCases)
    func invalidValues(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            for (body, field) in Self.invalidSettings {
                let response = try await app.call(.post, "/api/v1/events", json: body, token: token)
                let detail = response.expectProblem(.unprocessableContent)
                #expect(response.string("field") == field, "\(body) → \(response.text)")
                #expect(
                    detail.contains(field) || (field == "name" && detail.contains("name")) || detail.lowercased().contains("password"), "\(detail)")
            }
            let wrongType = try await app.call(.post, "/api/v1/events", json: ["name": "ok", "shotsPerGuest": "many"], token: token)
            #expect(wrongType.expectProblem(.badRequest).contains("shotsPerGuest"))
        }
    }

    @Test("Status follows the clock: scheduled, live, ended; end now", arguments: TestEngine.allCases)
    func lifecycle(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let start = app.clock.now + 3600
            let event = try await app.createEvent(token: token, ["startsAt": formatTime(start), "durationHours": 5])
            let id = try #require(event["id"] as? String)
            #expect(event["status"] as? String == "scheduled")
            app.clock.advance(by: 3600)
            #expect(try await app.call(.get, "/api/v1/events/\(id)", token: token).string("status") == "live")
            app.clock.advance(by: 5 * 3600)
            #expect(try await app.call(.get, "/api/v1/events/\(id)", token: token).string("status") == "ended")

            let other = try #require(try await app.createEvent(token: token)["id"] as? String)
            app.clock.advance(by: 60)
            let ended = try await app.call(.post, "/api/v1/events/\(other)/end", token: token)
            #expect(ended.string("status") == "ended")
            #expect(parseTime(ended["endsAt"]) == app.clock.now)
        }
    }

    @Test("Everything is editable before the first photo; afterwards only name, description, end and downloads", arguments: TestEngine.allCases)
    func editRules(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let id = try #require(try await app.createEvent(token: token)["id"] as? String)

            let before = try await app.call(
                .patch, "/api/v1/events/\(id)",
                json: [
                    "shotsPerGuest": 10, "reveal": ["mode": "at-end"], "allowLibraryUploads": false, "password": "secret", "maxGuests": 50,
                ], token: token)
            #expect(before.status == .ok, "\(before.text)")
            #expect(before["shotsPerGuest"] as? Int == 10)
            #expect(before["hasPassword"] as? Bool == true)
            #expect((before["reveal"] as? [String: Any])?["mode"] as? String == "at-end")

            // The photos feature sets this when the first photo is stored.
            try await app.services.database.sql { db in
                try await EventRepository.markFirstPhoto(eventID: id, at: app.clock.now, in: db)
            }

            for (field, value) in [
                ("shotsPerGuest", 12 as Any), ("reveal", ["mode": "now"]), ("allowLibraryUploads", true),
                ("password", "other"), ("maxGuests", 60), ("startsAt", formatTime(app.clock.now + 60)),
            ] {
                let locked = try await app.call(.patch, "/api/v1/events/\(id)", json: [field: value], token: token)
                #expect(locked.expectProblem(.conflict).contains(field))
                #expect(locked.string("field") == field)
            }
            // Re-sending an unchanged locked value (a form that posts everything) is fine.
            #expect(try await app.call(.patch, "/api/v1/events/\(id)", json: ["shotsPerGuest": 10], token: token).status == .ok)

            let after = try await app.call(
                .patch, "/api/v1/events/\(id)",
                json: [
                    "name": "Renamed", "description": "See you there", "durationHours": 240, "allowGuestDownloads": false,
                ], token: token)
            #expect(after.status == .ok, "\(after.text)")
            #expect(after.string("name") == "Renamed")
            #expect(after["allowGuestDownloads"] as? Bool == false)
            #expect(after["settingsLocked"] as? Bool == true)
            let length = try #require(parseTime(after["endsAt"])).timeIntervalSince(try #require(parseTime(after["startsAt"])))
            #expect(length.rounded() == 240 * 3600)
        }
    }

    @Test("A user lists the events they organize and joined; delete removes one", arguments: TestEngine.allCases)
    func listAndDelete(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let ana = try await app.userToken()
            let ben = try await app.userToken()
            let anas = try await app.createEvent(token: ana, ["name": "Ana's party"])
            let bens = try await app.createEvent(token: ben, ["name": "Ben's party"])
            // Ana joins Ben's event while signed in: it is now one of her events too.
            let joined = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: bens["code"] as? String, name: "Ana"), token: ana)
            #expect(joined.status == .created)

            let list = try await app.call(.get, "/api/v1/events", token: ana)
            let items = try #require(list["items"] as? [[String: Any]])
            #expect(Set(items.compactMap { $0["name"] as? String }) == ["Ana's party", "Ben's party"])
            #expect(items.first { $0["name"] as? String == "Ben's party" }?["role"] as? String == "guest")
            let bensList = try #require(try await app.call(.get, "/api/v1/events", token: ben)["items"] as? [[String: Any]])
            #expect(bensList.compactMap { $0["name"] as? String } == ["Ben's party"])

            let id = try #require(anas["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)", token: ana).status == .noContent)
            try await app.call(.get, "/api/v1/events/\(id)", token: ana).expectProblem(.notFound)
        }
    }

    @Test("Event codes are unique and typable in any case, with or without the dash", arguments: TestEngine.allCases)
    func codes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            var codes = Set<String>()
            for index in 0..<40 {
                let event = try await app.createEvent(token: token, ["name": "Event \(index)"])
                codes.insert(try #require(event["code"] as? String))
            }
            #expect(codes.count == 40)
            let code = codes.first!
            let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
            #expect(try await app.call(.post, "/api/v1/join", body: JoinRequest(code: typed, name: "Emily")).status == .created)
        }
    }
}

func parseTime(_ value: Any?) -> Date? {
    guard let string = value as? String else { return nil }
    return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string)
}

func formatTime(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}
