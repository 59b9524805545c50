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

@Suite("Joining (JN-1, JN-2, JN-3, JN-4)")
struct JoinTests {
    @Test("A guest joins with a trimmed name and gets a token that reaches the event", arguments: TestEngine.allCases)
    func join(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 12])
            let joined = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as? String, name: "  Maggie  "))
            #expect(joined.status == .created)
            let guest = try #require(joined["guest"] as? [String: Any])
            #expect(guest["name"] as? String == "Maggie")
            #expect(guest["shotsLeft"] as? Int == 12)
            #expect((joined["event"] as? [String: Any])?["role"] as? String == "guest")
            let token = try #require(joined.string("token"))

            let me = try await app.call(.get, "/api/v1/me", token: token)
            #expect(me.string("kind") == "guest")
            #expect(try await app.call(.get, "/api/v1/events/\(event["id"]!)", token: token).status == .ok)
        }
    }

    @Test("Guest names: 1 to 40 characters, no control characters", arguments: TestEngine.allCases)
    func names(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let code = try await app.createEvent(token: try await app.userToken())["code"]!
            for bad in ["", "   ", String(repeating: "a", count: 41), "Ana\u{0}", "Ana\nBen", "\u{202E}anA", String(repeating: "x", count: 10_000)] {
                let response = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: bad))
                response.expectProblem(.unprocessableContent)
                #expect(response.string("field") == "name")
            }
            for good in [String(repeating: "é", count: 40), "👩‍👩‍👧 family", "Zoë"] {
                #expect(try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: good)).status == .created, "\(good)")
            }
        }
    }

    @Test("Unknown, malformed and expired codes get 404 problem+json", arguments: TestEngine.allCases)
    func badCodes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let event = try await app.createEvent(token: try await app.userToken(), ["durationHours": 1])
            for code in ["ZZZZ-ZZZZ", "nope", "", "K7QX-M2PA-EXTRA"] {
                let response = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "Ana"))
                #expect(response.expectProblem(.notFound).contains("code"))
            }
            // Ended but within the retention period: guests may still join to see and download.
            app.clock.advance(by: 2 * 3600)
            #expect(try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as? String, name: "Late")).status == .created)
            app.clock.advance(by: 31 * 86_400)
            try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as? String, name: "Too late")).expectProblem(.notFound)
        }
    }

    @Test("Event password: required, checked, and guessing is rate-limited", arguments: TestEngine.allCases)
    func password(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.limits.join = .init(burst: 3, refillEvery: .seconds(60)) }) { app in
            let code = try await app.createEvent(token: try await app.userToken(), ["password": "baptism"])["code"]!
            #expect(
                try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "Ana")).expectProblem(.forbidden).contains(
                    "password"))
            #expect(try await app.call(.post, "/api/v1/join", json: ["code": code, "name": "Ana", "password": "baptism"]).status == .created)
            for _ in 0..<3 {
                try await app.call(.post, "/api/v1/join", json: ["code": code, "name": "Ana", "password": "guess"]).expectProblem(.forbidden)
            }
            let limited = try await app.call(.post, "/api/v1/join", json: ["code": code, "name": "Ana", "password": "baptism"])
            limited.expectProblem(.tooManyRequests)
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test("Code guessing is rate-limited; correct joins do not count", arguments: TestEngine.allCases)
    func codeGuessing(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.limits.join = .init(burst: 5, refillEvery: .seconds(30)) }) { app in
            let code = try await app.createEvent(token: try await app.userToken())["code"]!
            // A whole room behind one address joins: no limit on success.
            for index in 0..<20 {
                #expect(
                    try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "Guest \(index)")).status == .created)
            }
            for _ in 0..<5 {
                try await app.call(.post, "/api/v1/join", body: JoinRequest(code: "AAAA-AAAA", name: "Eve")).expectProblem(.notFound)
            }
            let limited = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "Eve"))
            limited.expectProblem(.tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
        }
    }

    @Test("Two guests with the same name can be told apart: the second is “Maggie 2”", arguments: TestEngine.allCases)
    func sameName(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let code = try await app.createEvent(token: try await app.userToken())["code"]!
            var names: [String] = []
            for typed in ["Maggie", "Maggie", "maggie", "Ana"] {
                let joined = try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: typed))
                names.append(try #require((joined["guest"] as? [String: Any])?["name"] as? String))
            }
            #expect(names == ["Maggie", "Maggie 2", "maggie 3", "Ana"])
        }
    }

    @Test("Max guests holds under 20 parallel joins; leaving frees a place and revokes the token", arguments: TestEngine.allCases)
    func maxGuests(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer, ["maxGuests": 5])
            let code = try #require(event["code"] as? String)
            let id = try #require(event["id"] as? String)
            let mine = try await app.guestToken(code: code, name: "Leaver")

            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<20 {
                    group.addTask { try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "G\(index)")).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 4)
            #expect(statuses.filter { $0 == .conflict }.count == 16)
            #expect(try await app.call(.get, "/api/v1/events/\(id)", token: organizer)["guestCount"] as? Int == 5)
            try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "Waiting")).expectProblem(.conflict)

            #expect(try await app.call(.delete, "/api/v1/events/\(id)/membership", token: mine).status == .noContent)
            try await app.call(.get, "/api/v1/me", token: mine).expectProblem(.unauthorized)
            #expect(try await app.call(.post, "/api/v1/join", body: JoinRequest(code: code as? String, name: "Waiting")).status == .created)
        }
    }
}
