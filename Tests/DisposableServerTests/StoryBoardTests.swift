import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The Story Board through HTTP (stories 20–23, 34, 47–48): last month's capsule shared; friends — and only
/// friends — see it, its photos, react and comment; the owner is told; the board starts again each month.
@Suite("Story Board (CAP-2)")
struct StoryBoardTests {
    static func items(_ response: APIResponse) -> [[String: Any]] { response["items"] as? [[String: Any]] ?? [] }

    @Test(
        "Shared to friends only; reactions and comments told to the owner; strangers see nothing; a new month, a new board",
        arguments: TestEngine.allCases)
    func board(engine: TestEngine) async throws {
        let folder = try SelectionTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestApp.run(engine) { app in
            // setup: Ana has a November capsule of two photos; Ben is her friend, Cleo is not
            app.clock.set(CapsuleTests.at("2026-11-20T12:00:00Z"))
            let ana = try await app.userToken(email: "ana@example.com")
            let ben = try await app.userToken(email: "ben@example.com")
            let cleo = try await app.userToken(email: "cleo@example.com")
            for (token, name) in [(ana, "Ana"), (ben, "Ben"), (cleo, "Cleo")] {
                #expect(try await app.call(.patch, "/api/v1/me", json: ["name": name], token: token).status == .ok)
            }
            for day in 1...2 {
                _ = try await CapsuleTests.add(
                    app, try await SelectionTests.scene(60 + day, in: folder), takenAt: "2026-11-0\(day)T12:00:00Z", token: ana)
            }
            #expect(try await app.call(.post, "/api/v1/friends", body: FriendRequest(email: "ana@example.com"), token: ben).status == .accepted)
            #expect(try await app.call(.post, "/api/v1/friends/\(try await LibraryTests.me(app, ben))/accept", token: ana).status == .ok)
            app.clock.set(CapsuleTests.at("2026-12-02T09:00:00Z"))
            for token in [ana, ben, cleo] { _ = try await app.call(.get, "/api/v1/me", token: token) }  // sessions slide with use
            try await app.services.capsules.releaseDue()
            #expect(try await app.call(.get, "/api/v1/board", token: ben).string("month") == "2026-11")
            #expect(Self.items(try await app.call(.get, "/api/v1/board", token: ben)).isEmpty, "not shared yet")

            // MUT: Ana shares; validate: Ben is told and sees it with its photos; Cleo sees nothing of it
            let shared = try await app.call(.put, "/api/v1/library/capsules/2026-11/share", token: ana)
            #expect(shared.status == .ok && shared.string("sharedAt") != nil, "\(shared.text)")
            #expect(try await app.call(.put, "/api/v1/library/capsules/2026-11/share", token: ana).status == .ok, "twice is once")
            let told = try await CapsuleTests.notices(app, ben, kind: "capsule-shared")
            #expect(told.count == 1 && told.first?["actorName"] as? String == "Ana" && told.first?["period"] as? String == "2026-11")
            let board = Self.items(try await app.call(.get, "/api/v1/board", token: ben))
            let item = try #require(board.first, "Ana's capsule on Ben's board")
            let capsuleID = try #require(item["id"] as? String)
            #expect((item["owner"] as? [String: Any])?["name"] as? String == "Ana" && item["mine"] as? Bool == false)
            #expect(!(try await app.call(.get, "/api/v1/board", token: ben).text.contains("ana@example.com")))
            let photos = (item["photos"] as? [[String: Any]]) ?? []
            #expect(photos.count == 2)
            let preview = try #require(photos.first?["preview"] as? String)
            let served = try await app.call(.get, preview, token: ben)
            #expect(
                served.status == .ok && served.headers[.contentType] == "image/jpeg" && served.headers[.cacheControl]?.hasPrefix("private") == true)
            #expect(Self.items(try await app.call(.get, "/api/v1/board", token: cleo)).isEmpty)
            try await app.call(.get, "/api/v1/board/\(capsuleID)", token: cleo).expectProblem(.notFound)
            try await app.call(.get, preview, token: cleo).expectProblem(.notFound)
            try await app.call(.put, "/api/v1/board/\(capsuleID)/reaction", json: ["emoji": "❤️"], token: cleo).expectProblem(.notFound)
            try await app.call(.post, "/api/v1/board/\(capsuleID)/comments", json: ["text": "Hi"], token: cleo).expectProblem(.notFound)
            #expect(Self.items(try await app.call(.get, "/api/v1/board", token: ana)).first?["mine"] as? Bool == true, "Ana sees hers")

            // the song's clip plays for a friend, not for a stranger
            #expect(try await CapsuleTests.putClip(app, "2026-11", try await CapsuleTests.tone("mp3", seconds: 2), token: ana).status == .ok)
            let clipURL = try #require(try await app.call(.get, "/api/v1/board/\(capsuleID)", token: ben).string("clipURL"))
            #expect(try await app.call(.get, clipURL, token: ben).headers[.contentType] == "audio/mp4")
            try await app.call(.get, clipURL, token: cleo).expectProblem(.notFound)

            // Ben reacts (then changes his mind) and comments; Ana is told once for the reaction, once for the comment
            #expect(try await app.call(.put, "/api/v1/board/\(capsuleID)/reaction", json: ["emoji": "❤️"], token: ben).status == .ok)
            let changed = try await app.call(.put, "/api/v1/board/\(capsuleID)/reaction", json: ["emoji": "🔥"], token: ben)
            #expect(changed["reactions"] as? [String: Int] == ["🔥": 1] && changed.string("myReaction") == "🔥", "\(changed.text)")
            let commented = try await app.call(.post, "/api/v1/board/\(capsuleID)/comments", json: ["text": "  So <b>good</b>  "], token: ben)
            #expect(commented.status == .created, "\(commented.text)")
            let comment = try #require((commented["comments"] as? [[String: Any]])?.first)
            #expect(
                comment["text"] as? String == "So <b>good</b>" && comment["authorName"] as? String == "Ben" && comment["canDelete"] as? Bool == true)
            // Ben's data export holds his friends and what he wrote
            let export = try await app.call(.get, "/api/v1/me/export", token: ben)
            let zip = try writeTemporaryFile(Data(buffer: export.body), suffix: ".zip")
            defer { try? FileManager.default.removeItem(at: zip) }
            let data = try JSONSerialization.jsonObject(with: try await extract(zip, "data.json")) as? [String: Any] ?? [:]
            #expect(data["friends"] as? [String] == ["Ana"])
            #expect((data["capsuleComments"] as? [[String: Any]])?.map { $0["text"] as? String } == ["So <b>good</b>"])
            let reactions = try await CapsuleTests.notices(app, ana, kind: "capsule-reaction")
            #expect(reactions.count == 1 && reactions.first?["text"] as? String == "❤️", "\(reactions)")
            #expect(try await CapsuleTests.notices(app, ana, kind: "capsule-comment").first?["text"] as? String == "So <b>good</b>")
            let seenByAna = try await app.call(.get, "/api/v1/board/\(capsuleID)", token: ana)
            #expect(seenByAna["reactions"] as? [String: Int] == ["🔥": 1] && seenByAna["myReaction"] == nil)
            // the owner may delete a friend's comment; the reaction can be taken back
            let commentID = try #require(comment["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/board/\(capsuleID)/comments/\(commentID)", token: ana).status == .noContent)
            try await app.call(.delete, "/api/v1/board/\(capsuleID)/comments/\(commentID)", token: ben).expectProblem(.notFound)
            #expect(try await app.call(.delete, "/api/v1/board/\(capsuleID)/reaction", token: ben)["reactions"] as? [String: Int] == [:])

            // hostile input
            for emoji in ["👎", "<b>", "", "❤️❤️"] {
                try await app.call(.put, "/api/v1/board/\(capsuleID)/reaction", json: ["emoji": emoji], token: ben).expectProblem(
                    .unprocessableContent)
            }
            for text in ["", "   ", String(repeating: "a", count: 501), "a\u{202E}b"] {
                try await app.call(.post, "/api/v1/board/\(capsuleID)/comments", json: ["text": text], token: ben).expectProblem(
                    .unprocessableContent)
            }
            try await app.call(.post, "/api/v1/board/\(capsuleID)/comments", json: ["words": "hi"], token: ben).expectProblem(.badRequest)
            try await app.call(.get, "/api/v1/board/\(capsuleID)/photos/somebody-else/preview", token: ben).expectProblem(.notFound)

            // Unshared: gone from Ben's board; shared again and friendship ended: gone too
            #expect(try await app.call(.delete, "/api/v1/library/capsules/2026-11/share", token: ana).status == .noContent)
            #expect(Self.items(try await app.call(.get, "/api/v1/board", token: ben)).isEmpty)
            _ = try await app.call(.put, "/api/v1/library/capsules/2026-11/share", token: ana)
            #expect(try await app.call(.delete, "/api/v1/friends/\(try await LibraryTests.me(app, ana))", token: ben).status == .noContent)
            #expect(Self.items(try await app.call(.get, "/api/v1/board", token: ben)).isEmpty)
            try await app.call(.get, preview, token: ben).expectProblem(.notFound)

            // Only last month's capsule goes on the board; next month the board starts again
            app.clock.set(CapsuleTests.at("2026-12-25T09:00:00Z"))
            _ = try await app.call(.get, "/api/v1/me", token: ana)  // sessions slide with use
            app.clock.set(CapsuleTests.at("2027-01-03T09:00:00Z"))
            #expect(Self.items(try await app.call(.get, "/api/v1/board", token: ana)).isEmpty, "December's board: November's capsule is off it")
            try await app.call(.put, "/api/v1/library/capsules/2026-11/share", token: ana).expectProblem(.conflict)
            let page = try await app.page(.get, "/board", cookie: ana, headers: [.acceptLanguage: "fr"]).text
            #expect(page.contains("Story Board") && page.contains("(décembre 2026)"), "a month within a sentence, in French")
        }
    }
}
