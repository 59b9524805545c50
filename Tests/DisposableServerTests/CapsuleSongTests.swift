import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The month's song from a self-hosted Maloja, through HTTP against a real Maloja the test starts —
/// linked on My account (checked by calling it), taken by the capsule, still the person's to change.
@Suite("The capsule's song from a scrobbler (Maloja)")
struct CapsuleSongTests {
    @Test("The month's most played track becomes the capsule's song; a wrong key, a dead address or a bad URL are refused with a sentence")
    func songFromMaloja() async throws {
        let maloja = try await TestMaloja.start()
        let folder = try SelectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withCleanup {
            // October 2026 on Maloja: Stromae three times, Angèle and Dua Lipa twice; November's plays are not October's
            for (day, hour) in [(3, 20), (12, 9), (28, 22)] {
                try await maloja.scrobble(
                    "Alors on danse", by: ["Stromae"],
                    at: Int(CapsuleTests.at(String(format: "2026-10-%02dT%02d:00:00Z", day, hour)).timeIntervalSince1970))
            }
            for day in [5, 6] {
                try await maloja.scrobble(
                    "Fever", by: ["Angèle", "Dua Lipa"], at: Int(CapsuleTests.at(String(format: "2026-10-%02dT12:00:00Z", day)).timeIntervalSince1970)
                )
            }
            for day in 2...6 {
                try await maloja.scrobble(
                    "November Rain", by: ["Guns N' Roses"],
                    at: Int(CapsuleTests.at(String(format: "2026-11-%02dT12:00:00Z", day)).timeIntervalSince1970))
            }
            try await TestApp.run(.sqlite) { app in
                app.clock.set(CapsuleTests.at("2026-10-31T20:00:00Z"))
                let ana = try await app.userToken()
                _ = try await CapsuleTests.add(app, try await SelectionTests.scene(41, in: folder), takenAt: "2026-10-10T12:00:00Z", token: ana)
                // Bob links his Maloja only after his October capsule came out
                let bob = try await app.userToken()
                _ = try await CapsuleTests.add(app, try await SelectionTests.scene(42, in: folder), takenAt: "2026-10-11T12:00:00Z", token: bob)

                // hostile: a key Maloja does not know, an address where nothing answers, addresses that are not one
                let wrong = try await app.call(
                    .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": maloja.base, "apiKey": "not-the-key"], token: ana)
                #expect(wrong.expectProblem(.unprocessableContent).contains("does not know this API key"))
                let dead = try await app.call(
                    .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": "http://127.0.0.1:\(try freePort())", "apiKey": maloja.key],
                    token: ana)
                #expect(dead.expectProblem(.unprocessableContent).contains("No Maloja server answered"))
                for url in ["ftp://music.example.org", "http://user:secret@127.0.0.1:9", "music.example.org", "http://127.0.0.1:9/?x=1"] {
                    let refused = try await app.call(
                        .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": url, "apiKey": maloja.key], token: ana)
                    #expect(refused.expectProblem(.unprocessableContent).contains("url is the Maloja server's address"))
                }
                let other = try await app.call(
                    .put, "/api/v1/me/scrobbler", json: ["kind": "spotify", "url": maloja.base, "apiKey": "x"], token: ana)
                #expect(other.expectProblem(.unprocessableContent).contains("Only a Maloja server"))
                try await app.call(.get, "/api/v1/me/scrobbler", token: ana).expectProblem(.notFound)

                // MUT: linked, then October's capsule comes out
                let linked = try await app.call(
                    .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": maloja.base + "/", "apiKey": maloja.key], token: ana)
                #expect(linked.status == .ok && linked.string("url") == maloja.base, "\(linked.text)")
                let shown = try await app.call(.get, "/api/v1/me/scrobbler", token: ana)
                #expect(shown.string("kind") == "maloja" && !shown.text.contains(maloja.key), "the key is never answered back: \(shown.text)")
                app.clock.set(CapsuleTests.at("2026-11-01T00:30:00Z"))
                try await app.services.capsules.releaseDue()

                // validate: the month's most played, as the song; the collage's words while Ana has written none
                let capsule = try await app.call(.get, "/api/v1/library/capsules/2026-10", token: ana)
                let song = capsule["song"] as? [String: Any]
                #expect(song?["title"] as? String == "Alors on danse" && song?["artist"] as? String == "Stromae", "\(capsule.text)")
                let anaID = try #require(((try await app.call(.get, "/api/v1/me", token: ana))["user"] as? [String: Any])?["id"] as? String)
                let made = try #require(try await app.services.capsules.rows.find(userID: anaID, month: CapsuleMonth(year: 2026, month: 10)))
                #expect(made.songLine == "♪ Alors on danse — Stromae")
                // still Ana's to change
                let changed = try await app.call(
                    .patch, "/api/v1/library/capsules/2026-10", json: ["songTitle": "Fever", "songArtist": "Angèle"], token: ana)
                #expect((changed["song"] as? [String: Any])?["title"] as? String == "Fever", "\(changed.text)")

                // the link is Ana's data: in her export, without the key
                let export = try await app.call(.get, "/api/v1/me/export", token: ana)
                let zip = try writeTemporaryFile(Data(buffer: export.body), suffix: ".zip")
                defer { try? FileManager.default.removeItem(at: zip) }
                let data = try await extract(zip, "data.json")
                let exported = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["scrobbler"] as? [String: Any]
                #expect(exported?["url"] as? String == maloja.base && String(decoding: data, as: UTF8.self).contains(maloja.key) == false)

                // unlinked: nothing linked any more; another account never saw Ana's
                try await app.call(.get, "/api/v1/me/scrobbler", token: bob).expectProblem(.notFound)
                #expect(try await app.call(.delete, "/api/v1/me/scrobbler", token: ana).status == .noContent)
                try await app.call(.get, "/api/v1/me/scrobbler", token: ana).expectProblem(.notFound)

                // linked after a capsule came out without a song: the capsule gets its month's song then
                #expect((try await app.call(.get, "/api/v1/library/capsules/2026-10", token: bob))["song"] == nil)
                let bobs = try await app.call(
                    .put, "/api/v1/me/scrobbler", json: ["kind": "maloja", "url": maloja.base, "apiKey": maloja.key], token: bob)
                #expect(bobs.status == .ok, "\(bobs.text)")
                let filled = try await app.call(.get, "/api/v1/library/capsules/2026-10", token: bob)
                #expect((filled["song"] as? [String: Any])?["title"] as? String == "Alors on danse", "\(filled.text)")
            }
        } cleanup: {
            await maloja.stop()
        }
    }
}
