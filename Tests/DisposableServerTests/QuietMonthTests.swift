import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A quiet month still gets a capsule — completed from the same month in earlier years, with the month's
/// moments; moments alone make one; nothing at all makes none, and no notice.
@Suite("Monthly capsules of quiet months")
struct QuietMonthTests {
    @Test(
        "Two photos in November: the capsule adds Novembers of earlier years and the month's moments; moments alone make one; old photos alone none")
    func quietMonths() async throws {
        let folder = try SelectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestApp.run(.sqlite) { app in
            app.clock.set(CapsuleTests.at("2026-10-15T12:00:00Z"))
            let ana = try await app.userToken()
            let bo = try await app.userToken()
            let cy = try await app.userToken()
            var ids: [String: String] = [:]
            for (name, seed, takenAt, token) in [
                ("nov-a", 51, "2026-11-03T12:00:00Z", ana), ("nov-b", 52, "2026-11-21T18:00:00Z", ana),
                ("nov-2025", 53, "2025-11-08T10:00:00Z", ana), ("nov-2019", 54, "2019-11-30T20:00:00Z", ana),
                ("oct-2025", 55, "2025-10-20T10:00:00Z", ana), ("bo-nov-2024", 56, "2024-11-11T11:00:00Z", bo),
                ("cy-nov-2023", 57, "2023-11-05T09:00:00Z", cy),
            ] as [(String, Int, String, String)] {
                ids[name] = try await CapsuleTests.add(app, try await SelectionTests.scene(seed, in: folder), takenAt: takenAt, token: token)
            }
            // Moments: October's is not November's
            #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: "Apple picking"), token: ana).status == .created)
            for (day, text, token) in [("10", "First frost on the window", ana), ("20", "Soup with Léa", ana), ("12", "A long walk", bo)] {
                app.clock.set(CapsuleTests.at("2026-11-\(day)T19:00:00Z"))
                #expect(try await app.call(.post, "/api/v1/moments", body: MomentInput(text: text), token: token).status == .created)
            }
            #expect(try await app.call(.get, "/api/v1/me", token: cy).status == .ok)  // a session in use stays open

            // MUT: the month is over
            app.clock.set(CapsuleTests.at("2026-12-01T00:30:00Z"))
            try await app.services.capsules.releaseDue()

            // validate: Ana's holds her two, then the best of earlier Novembers (not October's); her moments of the month
            let capsule = try await app.call(.get, "/api/v1/library/capsules/2026-11", token: ana)
            #expect(Set(CapsuleTests.photoIDs(capsule)) == Set(["nov-a", "nov-b", "nov-2025", "nov-2019"].map { ids[$0]! }), "\(capsule.text)")
            let moments = (capsule["moments"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(moments == ["First frost on the window", "Soup with Léa"], "\(capsule.text)")
            // Bo wrote a moment and has an older November: a capsule of those. Cy has only an old November: none, untold.
            let bos = try await app.call(.get, "/api/v1/library/capsules/2026-11", token: bo)
            #expect(CapsuleTests.photoIDs(bos) == [ids["bo-nov-2024"]!] && (bos["moments"] as? [Any])?.count == 1, "\(bos.text)")
            try await app.call(.get, "/api/v1/library/capsules/2026-11", token: cy).expectProblem(.notFound)
            #expect(try await CapsuleTests.notices(app, cy, kind: "capsule").isEmpty)
            #expect(try await CapsuleTests.notices(app, bo, kind: "capsule").count == 1)

            // The page says which photos are of an earlier year, and shows the moments
            let page = try await app.page(.get, "/capsules/2026-11", cookie: ana).text
            #expect(page.contains("Your moments this month") && page.contains("Soup with Léa") && !page.contains("Apple picking"), "\(page)")
            #expect(page.contains(">2019</span>") && page.contains(">2025</span>") && !page.contains(">2026</span>"))
            let french = try await app.page(.get, "/capsules/2026-11", cookie: ana, headers: [.acceptLanguage: "fr"]).text
            #expect(french.contains("Vos moments du mois"))

            // Edits: an earlier November may be chosen; another month may not
            let chosen = try await app.call(
                .patch, "/api/v1/library/capsules/2026-11", json: ["photos": [ids["nov-2019"]!, ids["nov-a"]!]], token: ana)
            #expect(Set(CapsuleTests.photoIDs(chosen)) == [ids["nov-2019"]!, ids["nov-a"]!], "\(chosen.text)")
            let october = try await app.call(.patch, "/api/v1/library/capsules/2026-11", json: ["photos": [ids["oct-2025"]!]], token: ana)
            #expect(october.expectProblem(.unprocessableContent).contains("or that month in an earlier year"))
            let candidates = try await app.call(.get, "/api/v1/library/capsules/2026-11/candidates", token: ana)
            let offered = Set((candidates["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            #expect(offered.contains(ids["nov-2019"]!) && !offered.contains(ids["oct-2025"]!), "\(candidates.text)")
        }
    }
}
