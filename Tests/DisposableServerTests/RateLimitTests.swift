import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SEC-3, JN-4: limits key on the real client behind trusted proxies, on the account and
/// the event as well as the address; QR holders are never slowed by others' guesses; every lookup that reveals
/// a code counts; attempts are counted before the work, so parallel ones cannot slip through.
@Suite("Rate limits")
struct RateLimitTests {
    private func forwarded(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: "198.51.100.9, \(address)"] }

    @Test("Behind a trusted proxy each client has its own budget; a forged header from anyone else changes nothing")
    func trustedProxies() async throws {
        try await TestApp.run(
            .sqlite, live: true,
            configure: {
                $0.limits.login = .init(burst: 3, refillEvery: .seconds(60))
                $0.trustedProxies = try! TrustedProxies("127.0.0.0/8, ::1")
            }
        ) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            for _ in 0..<3 {
                try await app.call(
                    .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong"), headers: forwarded("203.0.113.7")
                ).expectProblem(.unauthorized)
            }
            try await app.call(
                .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "correct horse"), headers: forwarded("203.0.113.7")
            ).expectProblem(.tooManyRequests)
            // Ana herself, elsewhere behind the same proxy.
            let ana = try await app.call(
                .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "correct horse"), headers: forwarded("203.0.113.8"))
            #expect(ana.status == .ok)
        }
        try await TestApp.run(.sqlite, live: true, configure: { $0.limits.login = .init(burst: 3, refillEvery: .seconds(60)) }) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            for index in 0..<3 {
                try await app.call(
                    .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong"),
                    headers: forwarded("203.0.113.\(index)")
                ).expectProblem(.unauthorized)
            }
            try await app.call(
                .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong"), headers: forwarded("203.0.113.99")
            ).expectProblem(.tooManyRequests)
        }
    }

    @Test("Wrong log-ins on one account do not lock out another account from the same address", arguments: TestEngine.allCases)
    func perAccount(engine: TestEngine) async throws {
        // A slow refill: on a loaded run the eleven attempts have taken over a minute, and one came back.
        try await TestApp.run(engine, configure: { $0.limits.login = .init(burst: 10, refillEvery: .seconds(3600)) }) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            _ = try await app.userToken(email: "ben@example.com", password: "correct horse")
            for _ in 0..<10 {
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong")).expectProblem(
                    .unauthorized)
            }
            try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong")).expectProblem(
                .tooManyRequests)
            let ben = try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "ben@example.com", password: "correct horse"))
            #expect(ben.status == .ok)
        }
    }

    @Test("Guessing one account from many addresses is limited, and never locks its owner out", arguments: TestEngine.allCases)
    func perAccountAcrossAddresses(engine: TestEngine) async throws {
        try await TestApp.run(
            engine, live: true,
            configure: {
                $0.limits.login = .init(burst: 10, refillEvery: .seconds(3600))
                $0.limits.loginPerAddress = .init(burst: 50, refillEvery: .seconds(3600))
                // Slow refills: a loaded run's minutes must not give tokens back.
                $0.limits.loginPerAccount = .init(burst: 50, refillEvery: .seconds(3600))
                $0.trustedProxies = try! TrustedProxies("127.0.0.1")
            }
        ) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            func signIn(_ password: String, from address: String) async throws -> APIResponse {
                try await app.call(
                    .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: password), headers: forwarded(address))
            }
            // The review's scenario: 10 wrong passwords from each of 5 addresses empty the account's budget.
            for attacker in 1...5 {
                for _ in 0..<10 { try await signIn("wrong", from: "192.0.2.\(attacker)").expectProblem(.unauthorized) }
            }
            try await signIn("wrong", from: "192.0.2.1").expectProblem(.tooManyRequests)
            // Ana, from an address that has not failed, with her password: in.
            #expect(try await signIn("correct horse", from: "198.51.100.20").status == .ok)
            // An attacker's one guess a minute from an address that failed keeps nothing locked but itself.
            try await signIn("wrong", from: "192.0.2.3").expectProblem(.tooManyRequests)
            #expect(try await signIn("correct horse", from: "198.51.100.21").status == .ok)
            // A fresh address buys one guess at the account, not a burst.
            try await signIn("wrong", from: "192.0.2.200").expectProblem(.unauthorized)
            try await signIn("wrong", from: "192.0.2.200").expectProblem(.tooManyRequests)
        }
    }

    @Test("Guessing an event's password from many addresses never keeps out a guest who knows it", arguments: TestEngine.allCases)
    func eventPasswordAcrossAddresses(engine: TestEngine) async throws {
        try await TestApp.run(
            engine, live: true,
            configure: {
                $0.limits.join = .init(burst: 10, refillEvery: .seconds(3600))
                $0.limits.joinPerEvent = .init(burst: 20, refillEvery: .seconds(3600))
                $0.trustedProxies = try! TrustedProxies("127.0.0.1")
            }
        ) { app in
            let token = try await app.userToken()
            let event = try await app.createEvent(token: token, ["password": "garden party"])
            let code = try #require(event["code"] as? String)
            func join(_ password: String, from address: String) async throws -> APIResponse {
                try await app.call(.post, "/api/v1/join", json: ["code": code, "name": "Guest", "password": password], headers: forwarded(address))
            }
            for attacker in 1...2 {
                for _ in 0..<10 { try await join("wrong", from: "192.0.2.\(attacker)").expectProblem(.forbidden) }
            }
            try await join("garden party", from: "192.0.2.1").expectProblem(.tooManyRequests)
            #expect(try await join("garden party", from: "198.51.100.30").status == .created)
        }
    }

    @Test("200 joins by QR from one address all succeed while that address's typed-code guesses get 429", arguments: TestEngine.allCases)
    func qrJoinsAtAVenue(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.limits.join = .init(burst: 5, refillEvery: .seconds(3600)) }) { app in
            let event = try await app.createEvent(token: try await app.userToken())
            let joinURL = try #require(event["joinURL"] as? String)
            let key = try #require(URLComponents(string: joinURL)?.queryItems?.first { $0.name == "k" }?.value)
            #expect(key.count >= 22)
            var guesses: [HTTPResponse.Status] = []
            for index in 0..<200 {
                let joined = try await app.call(
                    .post, "/api/v1/join", body: JoinRequest(code: event["code"] as? String, key: key, name: "Guest \(index)"))
                #expect(joined.status == .created, "join \(index): \(joined.text)")
                if index % 4 == 0 {
                    guesses.append(try await app.call(.post, "/api/v1/join", body: JoinRequest(code: "AAAA-AAAA", name: "Eve")).status)
                }
            }
            #expect(guesses.prefix(5).allSatisfy { $0 == .notFound })
            #expect(guesses.dropFirst(5).allSatisfy { $0 == .tooManyRequests }, "\(guesses)")
            // The typed code is throttled for this address now; a wrong key is a typed code.
            try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as? String, name: "Typed")).expectProblem(
                .tooManyRequests)
            let forged = (key.hasPrefix("x") ? "y" : "x") + key.dropFirst()
            try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as? String, key: forged, name: "Forged"))
                .expectProblem(.tooManyRequests)
        }
    }

    @Test("Every page that reveals a code counts unknown codes; members and QR holders are never refused", arguments: TestEngine.allCases)
    func pagesCountGuesses(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.limits.join = .init(burst: 5, refillEvery: .seconds(60)) }) { app in
            let event = try await app.createEvent(token: try await app.userToken())
            let code = try #require(event["code"] as? String)
            let key = try #require(URLComponents(string: event["joinURL"] as! String)?.queryItems?.first { $0.name == "k" }?.value)
            let guest = try await app.guestToken(code: code)
            // A stranger opening a real code costs nothing.
            for _ in 0..<10 { #expect(try await app.page(.get, "/e/\(code)").status == .ok) }
            for path in ["/e/AAAA-AAAA", "/e/AAAA-AAAB/camera", "/e/AAAA-AAAC/mine", "/e/AAAA-AAAD/wall", "/e/AAAA-AAAE/continue"] {
                #expect(try await app.page(.get, path).status == .notFound, "\(path)")
            }
            for path in ["/e/\(code)", "/e/\(code)/camera", "/e/\(code)/wall", "/e/\(code)/continue", "/e/AAAA-AAAF"] {
                let refused = try await app.page(.get, path)
                #expect(refused.status == .tooManyRequests, "\(path)")
                #expect(refused.text.contains("<html"))
            }
            #expect(try await app.page(.post, "/e/\(code)/join", form: "name=Eve").status == .tooManyRequests)
            // The QR code's link, and guests already in, go on as if nothing happened.
            let scanned = try await app.page(.get, "/e/\(code)?k=\(key)")
            #expect(scanned.status == .ok)
            #expect(scanned.text.contains("name=\"key\" value=\"\(key)\""))
            let joined = try await app.page(.post, "/e/\(code)/join", form: "name=Zoe&terms=\(TermsOfUse.version)&key=\(key)")
            #expect(joined.status == .seeOther, "\(joined.text)")
            #expect(try await app.page(.get, "/e/\(code)/camera", cookie: guest).status == .ok)
        }
    }

    @Test("60 parallel wrong log-ins or event passwords: only the budget is evaluated", arguments: TestEngine.allCases)
    func parallelAttempts(engine: TestEngine) async throws {
        try await TestApp.run(
            engine,
            configure: {
                $0.limits.login = .init(burst: 10, refillEvery: .seconds(600))
                $0.limits.join = .init(burst: 10, refillEvery: .seconds(600))
            }
        ) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            let code = try await app.createEvent(token: try await app.userToken(), ["password": "baptism"])["code"] as! String
            let (logins, joins) = try await withThrowingTaskGroup(of: (Bool, HTTPResponse.Status).self) { group in
                for index in 0..<120 {
                    group.addTask {
                        index.isMultiple(of: 2)
                            ? (
                                true,
                                try await app.call(
                                    .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: "wrong \(index)")
                                ).status
                            )
                            : (
                                false,
                                try await app.call(.post, "/api/v1/join", json: ["code": code, "name": "G", "password": "guess \(index)"]).status
                            )
                    }
                }
                return try await group.reduce(into: ([HTTPResponse.Status](), [HTTPResponse.Status]())) {
                    if $1.0 { $0.0.append($1.1) } else { $0.1.append($1.1) }
                }
            }
            #expect(logins.filter { $0 == .unauthorized }.count == 10)
            #expect(logins.filter { $0 == .tooManyRequests }.count == 50)
            #expect(joins.filter { $0 == .forbidden }.count == 10)
            #expect(joins.filter { $0 == .tooManyRequests }.count == 50)
        }
    }

    @Test("Registering on the web after others' failed log-ins signs the new account in; a refused one creates nothing")
    func webRegistration() async throws {
        try await TestApp.run(
            .sqlite,
            configure: {
                $0.limits.loginPerAddress = .init(burst: 2, refillEvery: .seconds(600))
                $0.limits.registration = .init(burst: 1, refillEvery: .seconds(600))
            }
        ) { app in
            for _ in 0..<2 {
                try await app.call(.post, "/api/v1/sessions", body: LoginRequest(email: "x@example.com", password: "wrong")).expectProblem(
                    .unauthorized)
            }
            let registered = try await app.page(
                .post, "/register", form: "email=new%40example.com&password=password1&name=New&terms=\(TermsOfUse.version)")
            #expect(registered.status == .seeOther)
            #expect(registered.headers[values: .setCookie].contains { $0.hasPrefix("disposable_session=") && $0.count > 40 })
            let refused = try await app.page(
                .post, "/register", form: "email=late%40example.com&password=password1&name=Late&terms=\(TermsOfUse.version)")
            #expect(refused.status == .tooManyRequests)
            let users = try await app.services.database.sql { db in try await db.raw("SELECT email FROM users").all().count }
            #expect(users == 1)
        }
    }

    @Test("An event password needs at least six characters")
    func eventPasswordMinimum() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let short = try await app.call(.post, "/api/v1/events", json: ["name": "Party", "password": "1234"], token: organizer)
            #expect(short.expectProblem(.unprocessableContent).contains("at least 6"))
            #expect(try await app.call(.post, "/api/v1/events", json: ["name": "Party", "password": "123456"], token: organizer).status == .created)
        }
    }

    @Test("IPv6 behind a proxy: one /64's many addresses are one client; fresh networks meet a slow floor, and the owner still gets in")
    func ipv6Networks() async throws {
        try await TestApp.run(
            .sqlite, live: true,
            configure: {
                // The default bursts, with slow refills: a loaded run's minutes must not give tokens back.
                $0.limits = RateLimits(
                    login: .init(burst: 10, refillEvery: .seconds(3600)), loginPerAccount: .init(burst: 50, refillEvery: .seconds(3600)),
                    loginFloor: .init(burst: 10, refillEvery: .seconds(3600)))
                $0.trustedProxies = try! TrustedProxies("127.0.0.1")
            }
        ) { app in
            _ = try await app.userToken(email: "ana@example.com", password: "correct horse")
            func signIn(_ password: String, from address: String) async throws -> HTTPResponse.Status {
                try await app.call(
                    .post, "/api/v1/sessions", body: LoginRequest(email: "ana@example.com", password: password), headers: forwarded(address)
                )
                .status
            }
            // Ana got in from home once.
            #expect(try await signIn("correct horse", from: "2001:db8:aaaa:1::10") == .ok)
            // 70 wrong passwords from 70 addresses of one /64, as a proxy writes them for one IPv6 client.
            var statuses: [HTTPResponse.Status] = []
            for host in 1...70 { statuses.append(try await signIn("wrong", from: "2001:db8:bad:1::\(String(host, radix: 16))")) }
            #expect(
                statuses.prefix(10).allSatisfy { $0 == .unauthorized } && statuses.dropFirst(10).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            // A wrong password from each of 70 fresh /64s: the account's budget, then its slow floor.
            statuses = []
            for network in 1...70 { statuses.append(try await signIn("wrong", from: "2001:db8:\(String(network, radix: 16)):2::1")) }
            // The account's 40 tokens left, then its floor's 10: after that, 429 from any new network.
            #expect(
                statuses.prefix(50).allSatisfy { $0 == .unauthorized } && statuses.dropFirst(50).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            // Ana, from where she got in before, is not slowed by the floor.
            #expect(try await signIn("correct horse", from: "2001:db8:aaaa:1::11") == .ok)
        }
    }
}
