import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// CAP-3: moments through HTTP — counted by year where their owner lives, the year's recap once it is over there,
/// one's own only, and refusals of what does not belong in a note.
@Suite("Moments (CAP-3)")
struct MomentTests {
    static func texts(_ response: APIResponse, _ key: String = "items") -> [String] {
        ((response[key] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
    }

    @Test("Months and years are the owner's: 00:30 on 1 December in Auckland is still November in UTC", arguments: TestEngine.allCases)
    func years(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: Kiri lives in Auckland (UTC+13 in summer), Ana keeps the default (UTC)
            let time = ISO8601DateFormatter()
            app.clock.set(time.date(from: "2026-11-30T11:30:00Z")!)  // 1 December, 00:30 in Auckland
            let kiri = try await app.userToken()
            let ana = try await app.userToken()
            let zone = try await app.call(.patch, "/api/v1/me", json: ["timeZone": "Pacific/Auckland"], token: kiri)
            #expect(zone.status == .ok && zone.string("timeZone") == "Pacific/Auckland", "\(zone.text)")

            // MUT: the same instants for both; then 23:30 and 00:30 at the turn of the year in Auckland (still 31 December in UTC)
            for token in [kiri, ana] {
                #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "  Summer starts  "), token: token).status == .created)
            }
            app.clock.set(time.date(from: "2026-12-15T10:00:00Z")!)
            _ = try await app.call(.get, "/api/v1/moments", token: kiri)  // sessions slide with use
            _ = try await app.call(.get, "/api/v1/moments", token: ana)
            app.clock.set(time.date(from: "2026-12-31T10:30:00Z")!)
            let last = try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Fireworks soon"), token: kiri)
            #expect(last.status == .created && last.string("text") == "Fireworks soon", "\(last.text)")
            let recapBefore = try await app.call(.get, "/api/v1/moments/recap?year=2026", token: kiri)
            app.clock.advance(by: 3600)
            #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Happy new year"), token: kiri).status == .created)
            #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Still 2026 here"), token: ana).status == .created)

            // validate: this year where Kiri is, the one before, and Ana's in UTC
            let now = try await app.call(.get, "/api/v1/moments", token: kiri)
            #expect(now["year"] as? Int == 2027 && now["count"] as? Int == 1 && Self.texts(now) == ["Happy new year"], "\(now.text)")
            let before = try await app.call(.get, "/api/v1/moments?year=2026", token: kiri)
            #expect(Self.texts(before) == ["Fireworks soon", "Summer starts"], "newest first, trimmed: \(before.text)")
            let anas = try await app.call(.get, "/api/v1/moments", token: ana)
            #expect(anas["year"] as? Int == 2026 && Self.texts(anas) == ["Still 2026 here", "Summer starts"], "\(anas.text)")
            // the recap: not ready before midnight in Auckland, ready after, oldest first, by month there
            #expect(recapBefore["ready"] as? Bool == false, "\(recapBefore.text)")
            let recap = try await app.call(.get, "/api/v1/moments/recap?year=2026", token: kiri)
            #expect(recap["ready"] as? Bool == true && recap["count"] as? Int == 2, "\(recap.text)")
            #expect(Self.texts(recap, "moments") == ["Summer starts", "Fireworks soon"])
            let months = { (response: APIResponse) in
                ((response["months"] as? [[String: Any]]) ?? []).map { "\($0["month"] as? String ?? "?")×\($0["count"] as? Int ?? 0)" }
            }
            #expect(months(recap) == ["2026-12×2"], "both in December in Auckland: \(months(recap))")
            let anasRecap = try await app.call(.get, "/api/v1/moments/recap?year=2026", token: ana)
            #expect(anasRecap["ready"] as? Bool == false && months(anasRecap) == ["2026-11×1", "2026-12×1"], "UTC: \(anasRecap.text)")

            // the years to go to: those with moments where their owner is, and this year; none empty between
            #expect(now["years"] as? [Int] == [2027, 2026] && anas["years"] as? [Int] == [2026], "\(now.text) \(anas.text)")
            for _ in 0..<40 {  // two years on, the session kept alive as a person's is (a write: reads may be answered
                // from identities remembered for a few seconds, and the test's clock jumps days within them)
                app.clock.advance(by: 20 * 86_400)
                let kept = try await app.call(.patch, "/api/v1/me", json: ["timeZone": "Pacific/Auckland"], token: kiri)
                #expect(kept.status == .ok, "\(app.clock.now): \(kept.text)")
            }
            let posted = try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Two years on"), token: kiri)
            #expect(posted.status == .created, "\(posted.text)")
            let later = try await app.call(.get, "/api/v1/moments", token: kiri)
            #expect(later["year"] as? Int == 2029 && later["years"] as? [Int] == [2029, 2027, 2026], "no 2028: \(later.text)")
        }
    }

    @Test("One's own only; refused: empty, too long, control characters, unknown fields, bad years and zones, guests")
    func hostile() async throws {
        try await TestApp.run(.sqlite) { app in
            let kiri = try await app.userToken()
            let ana = try await app.userToken()
            let mine = try #require(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Mine"), token: kiri).string("id"))
            // another's moment is not there for Ana
            try await app.call(.delete, "/api/v1/moments/\(mine)", token: ana).expectProblem(.notFound)
            #expect(Self.texts(try await app.call(.get, "/api/v1/moments", token: ana)).isEmpty)
            for text in ["", "   ", String(repeating: "é", count: 281), "line\u{7}bell", "evil \u{202E}txt.exe"] {
                try await app.call(.post, "/api/v1/moments", body: MomentInput(text: text), token: kiri).expectProblem(.unprocessableContent)
            }
            try await app.call(.post, "/api/v1/moments", json: ["text": "x", "userId": "someone"], token: kiri).expectProblem(.badRequest)
            try await app.call(.post, "/api/v1/moments", raw: "{\"text\": 12}", token: kiri).expectProblem(.badRequest)
            for year in ["20x6", "1969", "99999", ""] {
                try await app.call(.get, "/api/v1/moments?year=\(year)", token: kiri).expectProblem(.unprocessableContent)
            }
            try await app.call(.get, "/api/v1/moments/recap", token: kiri).expectProblem(.unprocessableContent)
            for zone in ["Mars/Olympus", "../../etc/passwd", "", "Europe/Paris\u{0}", String(repeating: "A/", count: 40)] {
                try await app.call(.patch, "/api/v1/me", json: ["timeZone": zone], token: kiri).expectProblem(.unprocessableContent)
            }
            let event = try await app.createEvent(token: kiri)
            let guest = try await app.guestToken(code: event["code"] as! String)
            try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Hi"), token: guest).expectProblem(.forbidden)
            try await app.call(.get, "/api/v1/moments").expectProblem(.unauthorized)
            // the owner deletes it; it is gone
            #expect(try await app.call(.delete, "/api/v1/moments/\(mine)", token: kiri).status == .noContent)
            #expect(Self.texts(try await app.call(.get, "/api/v1/moments", token: kiri)).isEmpty)
        }
    }
}
