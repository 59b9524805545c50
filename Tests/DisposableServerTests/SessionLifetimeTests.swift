import Foundation
import HTTPTypes
import SQLKit
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Sessions end when unused, personal links can be stopped, and neither piles up.
@Suite("Session lifetimes and personal links")
struct SessionLifetimeTests {
    private func rows(_ app: TestApp, _ table: String) async throws -> Int {
        try await app.services.database.sql { db in
            try await db.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()!.decode(column: "n", as: Int.self)
        }
    }

    private func me(_ app: TestApp, _ token: String) async throws -> HTTPResponse.Status {
        app.services.recentReads.forgetAll()  // each look at the token goes to the database, at the clock's new time
        return try await app.call(.get, "/api/v1/me", token: token).status
    }

    @Test("A token lasts 30 days after its last use, sliding; then it opens nothing and the sweep deletes it", arguments: TestEngine.allCases)
    func slidingLifetime(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let token = try await app.userToken()
            let day: TimeInterval = 86_400
            app.clock.advance(by: 29 * day)
            #expect(try await me(app, token) == .ok)
            app.clock.advance(by: 29 * day)
            #expect(try await me(app, token) == .ok, "used a day ago: still good")
            let before = try await rows(app, "access_tokens")
            app.clock.advance(by: 31 * day)
            #expect(try await me(app, token) == .unauthorized)
            try await app.services.retention.sweep()
            #expect(try await rows(app, "access_tokens") == before - 1)
        }
    }

    @Test("A guest has one personal link at a time; it can be stopped; expired ones are swept", arguments: TestEngine.allCases)
    func personalLinks(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let event = try await app.createEvent(token: try await app.userToken())
            let id = event["id"] as! String
            let guest = try await app.guestToken(code: event["code"] as! String)
            var paths: [String] = []
            for _ in 0..<5 {
                let url = try #require(try await app.call(.post, "/api/v1/events/\(id)/membership/link", token: guest).string("url"))
                paths.append(String(url[url.range(of: "/c/")!.lowerBound...]))
            }
            #expect(try await rows(app, "guest_links") == 1)
            #expect(try await app.page(.get, paths[0]).status == .notFound, "replaced by the newer one")
            #expect(try await app.page(.get, paths[4]).status == .ok)
            #expect(try await app.call(.delete, "/api/v1/events/\(id)/membership/link", token: guest).status == .noContent)
            #expect(try await app.page(.get, paths[4]).status == .notFound)
            #expect(try await app.page(.post, paths[4]).status == .notFound)

            _ = try await app.call(.post, "/api/v1/events/\(id)/membership/link", token: guest)
            app.clock.advance(by: JoinService.personalLinkLifetime + 1)
            try await app.services.retention.sweep()
            #expect(try await rows(app, "guest_links") == 0)
        }
    }
}
