import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SOC-1, SOC-2: notes and drawings as posts of the event feed, comments and likes on every post — through HTTP,
/// with the photos' rules of who sees what (reveal, approval, membership).
@Suite("Guestbook (SOC-1, SOC-2)")
struct GuestbookTests {
    /// An event with a guest who shot once (of one shot) and another guest.
    struct Party {
        let organizer: String
        let eventID: String
        let maggie: String
        let tom: String
        let photoID: String
    }

    static func party(_ app: TestApp, settings: [String: Any] = [:]) async throws -> Party {
        let organizer = try await app.userToken()
        let event = try await app.createEvent(token: organizer, ["shotsPerGuest": 1, "durationHours": 24].merging(settings) { $1 })
        let eventID = try #require(event["id"] as? String)
        let code = try #require(event["code"] as? String)
        let maggie = try await app.guestToken(code: code, name: "Maggie")
        let tom = try await app.guestToken(code: code, name: "Tom")
        let photoID = try #require(
            try await app.upload(try await TestImages.jpeg(width: 320, height: 240), event: eventID, token: maggie).string("id"))
        _ = try await app.waitUntilProcessed(photoID, token: maggie)
        return Party(organizer: organizer, eventID: eventID, maggie: maggie, tom: tom, photoID: photoID)
    }

    static func items(_ response: APIResponse) -> [[String: Any]] { response["items"] as? [[String: Any]] ?? [] }

    static func changes(_ app: TestApp, event: String, token: String) async throws -> [[String: Any]] {
        let page = try await app.call(.get, "/api/v1/events/\(event)/changes?since=0", token: token, headers: [.accept: "application/json"])
        return items(page).compactMap { $0["change"] as? [String: Any] }
    }

    /// The names in a ZIP and its guestbook.txt, read by `unzip` as a person's computer would.
    static func zipListing(_ data: Data) async throws -> (names: [String], guestbook: String) {
        let file = try writeTemporaryFile(data, suffix: ".zip")
        defer { try? FileManager.default.removeItem(at: file) }
        let names = try await runTool("/usr/bin/unzip", ["-Z1", file.path]).output.split(separator: "\n").map(String.init)
        let guestbook = try await runTool("/usr/bin/unzip", ["-p", file.path, "guestbook.txt"]).output
        return (names, guestbook)
    }

    @Test("A note is a post: in the gallery with the photos, live, free of the film unless the organizer says", arguments: TestEngine.allCases)
    func notes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app)
            // Maggie's one shot is used; a note does not need one.
            app.clock.advance(by: 60)
            let words = "Congratulations <b>both</b>!\nSee you in Lisbon 🎉"
            let posted = try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "  \(words)\n"], token: party.maggie)
            #expect(posted.status == .created, "\(posted.text)")
            #expect(posted.string("kind") == "note" && posted.string("text") == words && posted["urls"] == nil && posted["caption"] == nil)
            #expect(posted["mine"] as? Bool == true && posted["likeCount"] as? Int == 0 && posted["commentCount"] as? Int == 0)
            let noteID = try #require(posted.string("id"))

            // Tom sees it: newest first in the gallery, before Maggie's photo; in the notes; live.
            let gallery = Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/photos", token: party.tom))
            #expect(gallery.map { $0["id"] as? String } == [noteID, party.photoID])
            #expect(gallery.first?["mine"] as? Bool == false)
            let notes = Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.tom))
            #expect(notes.map { $0["id"] as? String } == [noteID] && notes.first?["text"] as? String == words)
            let added = try await Self.changes(app, event: party.eventID, token: party.tom).last { $0["kind"] as? String == "photo-added" }
            #expect((added?["photo"] as? [String: Any])?["text"] as? String == words)

            // A note has no file: no original, no caption; the event's ZIP writes it in guestbook.txt.
            try await app.call(.get, "/api/v1/photos/\(noteID)/original", token: party.tom).expectProblem(.notFound)
            try await app.call(.patch, "/api/v1/photos/\(noteID)", json: ["caption": "x"], token: party.maggie).expectProblem(.unprocessableContent)
            let captioned = try await app.call(.patch, "/api/v1/photos/\(party.photoID)", json: ["caption": "Cake!"], token: party.maggie)
            #expect(captioned.status == .ok, "\(captioned.text)")
            let zip = try await app.call(.get, "/api/v1/events/\(party.eventID)/archive.zip", token: party.tom)
            #expect(zip.status == .ok, "\(zip.status)")
            let listing = try await Self.zipListing(Data(buffer: zip.body))
            #expect(listing.names.count == 2 && listing.names.contains("guestbook.txt"), "\(listing.names)")
            #expect(listing.guestbook.contains("Maggie, ") && listing.guestbook.contains("    See you in Lisbon 🎉"), "\(listing.guestbook)")
            #expect(listing.guestbook.contains("(Maggie): Cake!"), "\(listing.guestbook)")

            // Hostile or empty words, unknown fields, outsiders.
            for bad in ["", "   \n ", String(repeating: "a", count: 501), "bell\u{07}", "\u{202E}gpj.exe", "tab\tbed"] {
                try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": bad], token: party.tom)
                    .expectProblem(.unprocessableContent)
            }
            try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "hi", "approved": true], token: party.tom)
                .expectProblem(.badRequest)
            try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "hi"]).expectProblem(.unauthorized)
            try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "hi"], token: try await app.userToken())
                .expectProblem(.notFound)
            try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: try await app.userToken()).expectProblem(.notFound)
            #expect(Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.tom)).count == 1)

            // Drawings are photos drawn in the app: free of the film too, named as drawings.
            let drawing = try await app.upload(
                try await TestImages.image("png", width: 300, height: 300), event: party.eventID, token: party.maggie, source: "drawing")
            #expect(drawing.status == .created, "\(drawing.text)")
            #expect(
                drawing.string("source") == "drawing" && drawing.string("kind") == "photo" && drawing.string("downloadName") == "MaggieDrawing1.png")
            try await app.upload(try await TestImages.jpeg(width: 330, height: 240), event: party.eventID, token: party.maggie)
                .expectProblem(.forbidden)  // her film is still used up

            // Once the event is over, the guestbook is closed for new posts.
            app.clock.advance(by: 2 * 86_400)
            try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "late"], token: party.tom).expectProblem(.forbidden)
        }
    }

    @Test("Where the organizer says posts count as shots, a note takes one", arguments: TestEngine.allCases)
    func countedNotes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app, settings: ["postsCountAsShots": true])
            let refused = try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "one more"], token: party.maggie)
            #expect(refused.expectProblem(.forbidden).contains("shots"))
            #expect(
                try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "my shot"], token: party.tom).status == .created)
            try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "again"], token: party.tom).expectProblem(.forbidden)
            try await app.upload(try await TestImages.image("png"), event: party.eventID, token: party.tom, source: "drawing")
                .expectProblem(.forbidden)
            // Locked like the film once people shoot.
            try await app.call(.patch, "/api/v1/events/\(party.eventID)", json: ["postsCountAsShots": false], token: party.organizer)
                .expectProblem(.conflict)
        }
    }

    @Test("Notes develop until the reveal and wait for approval like photos", arguments: TestEngine.allCases)
    func noteVisibility(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app, settings: ["reveal": ["mode": "at-end"], "requireApproval": true])
            let posted = try await app.call(.post, "/api/v1/events/\(party.eventID)/notes", json: ["text": "a secret wish"], token: party.maggie)
            let noteID = try #require(posted.string("id"))
            #expect(posted["approved"] as? Bool == false)
            #expect(Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.tom)).isEmpty)
            try await app.call(.get, "/api/v1/photos/\(noteID)", token: party.tom).expectProblem(.notFound)
            let news = try await Self.changes(app, event: party.eventID, token: party.tom).filter { $0["kind"] as? String == "photo-added" }
            #expect(news.allSatisfy { $0["photo"] == nil }, "\(news)")
            #expect(!String(describing: news).contains("secret"))
            // Her own notes and the organizer's view.
            #expect(Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.maggie)).count == 1)
            #expect(Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.organizer)).count == 1)
            // Approved, then revealed: everyone reads it.
            #expect(try await app.call(.post, "/api/v1/photos/\(noteID)/approve", token: party.organizer).status == .ok)
            #expect(Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.tom)).isEmpty)
            app.clock.advance(by: 30 * 3600)
            let notes = Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/notes", token: party.tom))
            #expect(notes.first?["text"] as? String == "a secret wish")
        }
    }

    @Test(
        "Comments and likes: everyone who sees a post, counts for all, live; authors and the organizer take comments down",
        arguments: TestEngine.allCases)
    func commentsAndLikes(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app)
            let path = "/api/v1/photos/\(party.photoID)"
            let said = try await app.call(.post, "\(path)/comments", json: ["text": "What a shot! <img src=x onerror=alert(1)>"], token: party.tom)
            #expect(said.status == .created, "\(said.text)")
            #expect(said["mine"] as? Bool == true && (said["author"] as? [String: Any])?["name"] as? String == "Tom")
            let commentID = try #require(said.string("id"))
            app.clock.advance(by: 1)
            #expect(try await app.call(.post, "\(path)/comments", json: ["text": "Thanks!"], token: party.maggie).status == .created)

            // Everyone in the event reads them, oldest first; the post counts them.
            let read = Self.items(try await app.call(.get, "\(path)/comments", token: party.organizer))
            #expect(read.map { $0["text"] as? String } == ["What a shot! <img src=x onerror=alert(1)>", "Thanks!"])
            #expect(read.map { $0["mine"] as? Bool } == [false, false])
            #expect(try await app.call(.get, path, token: party.tom)["commentCount"] as? Int == 2)
            let paged = try await app.call(.get, "\(path)/comments?limit=1", token: party.tom)
            let second = try await app.call(.get, "\(path)/comments?limit=1&cursor=\(try #require(paged.string("nextCursor")))", token: party.tom)
            #expect(Self.items(second).first?["text"] as? String == "Thanks!")

            // Likes: one per person, idempotent, counts only.
            for _ in 0..<2 {
                let liked = try await app.call(.put, "\(path)/like", token: party.tom)
                #expect(liked.status == .ok && liked["likeCount"] as? Int == 1 && liked["likedByMe"] as? Bool == true, "\(liked.text)")
            }
            #expect(try await app.call(.put, "\(path)/like", token: party.organizer)["likeCount"] as? Int == 2)
            let tomsGallery = Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/photos", token: party.tom))
            #expect(tomsGallery.first?["likeCount"] as? Int == 2 && tomsGallery.first?["likedByMe"] as? Bool == true)
            let maggiesView = try await app.call(.get, path, token: party.maggie)
            #expect(maggiesView["likeCount"] as? Int == 2 && maggiesView["likedByMe"] as? Bool == false)
            let unliked = try await app.call(.delete, "\(path)/like", token: party.tom)
            #expect(unliked["likeCount"] as? Int == 1 && unliked["likedByMe"] as? Bool == false)
            #expect(try await app.call(.delete, "\(path)/like", token: party.tom)["likeCount"] as? Int == 1, "taking back twice changes nothing")

            // The live feed: the comment as text, the counts, never who liked.
            let news = try await Self.changes(app, event: party.eventID, token: party.maggie)
            let comment = news.first { $0["kind"] as? String == "comment-added" }
            #expect(comment?["photoId"] as? String == party.photoID && comment?["commentCount"] as? Int == 1)
            #expect((comment?["comment"] as? [String: Any])?["text"] as? String == "What a shot! <img src=x onerror=alert(1)>")
            let likes = news.filter { $0["kind"] as? String == "likes-changed" }.compactMap { $0["likeCount"] as? Int }
            #expect(likes == [1, 2, 1], "\(news)")
            #expect(!String(describing: news.filter { $0["kind"] as? String == "likes-changed" }).contains("Tom"))

            // Taking a comment down: not someone else's (403), the author's own and the organizer's any (204).
            try await app.call(.delete, "/api/v1/comments/\(commentID)", token: party.maggie).expectProblem(.forbidden)
            try await app.call(.delete, "/api/v1/comments/\(commentID)", token: try await app.userToken()).expectProblem(.notFound)
            try await app.call(.delete, "/api/v1/comments/\(commentID)").expectProblem(.unauthorized)
            #expect(try await app.call(.delete, "/api/v1/comments/\(commentID)", token: party.organizer).status == .noContent)
            try await app.call(.delete, "/api/v1/comments/\(commentID)", token: party.tom).expectProblem(.notFound)
            let removed = try await Self.changes(app, event: party.eventID, token: party.tom).last { $0["kind"] as? String == "comment-removed" }
            #expect(removed?["commentId"] as? String == commentID && removed?["commentCount"] as? Int == 1)

            // Hostile input and outsiders.
            for bad in ["", String(repeating: "b", count: 501), "nul\u{00}", "\u{2066}isolate"] {
                try await app.call(.post, "\(path)/comments", json: ["text": bad], token: party.tom).expectProblem(.unprocessableContent)
            }
            try await app.call(.post, "\(path)/comments", json: ["text": 3], token: party.tom).expectProblem(.badRequest)
            let stranger = try await app.userToken()
            try await app.call(.post, "\(path)/comments", json: ["text": "hi"], token: stranger).expectProblem(.notFound)
            try await app.call(.get, "\(path)/comments", token: stranger).expectProblem(.notFound)
            try await app.call(.put, "\(path)/like", token: stranger).expectProblem(.notFound)
            try await app.call(.put, "/api/v1/photos/nope/like", token: party.tom).expectProblem(.notFound)
            try await app.call(.get, "\(path)/comments?cursor=bogus", token: party.tom).expectProblem(.unprocessableContent)
        }
    }

    @Test("Nobody comments on, likes or hears of a post they may not see yet", arguments: TestEngine.allCases)
    func hiddenPosts(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app, settings: ["reveal": ["mode": "at-end"]])
            let path = "/api/v1/photos/\(party.photoID)"
            try await app.call(.post, "\(path)/comments", json: ["text": "peek"], token: party.tom).expectProblem(.notFound)
            try await app.call(.put, "\(path)/like", token: party.tom).expectProblem(.notFound)
            // Maggie and the organizer talk about it; Tom's feed says only that something happened.
            #expect(try await app.call(.post, "\(path)/comments", json: ["text": "our little secret"], token: party.organizer).status == .created)
            #expect(try await app.call(.put, "\(path)/like", token: party.maggie).status == .ok)
            let toms = try await Self.changes(app, event: party.eventID, token: party.tom).filter {
                ["comment-added", "likes-changed"].contains($0["kind"] as? String)
            }
            #expect(
                toms.count == 2 && toms.allSatisfy { $0["developing"] as? Bool == true && $0["photoId"] == nil && $0["comment"] == nil }, "\(toms)")
            let maggies = try await Self.changes(app, event: party.eventID, token: party.maggie).filter { $0["kind"] as? String == "comment-added" }
            #expect((maggies.first?["comment"] as? [String: Any])?["text"] as? String == "our little secret")
        }
    }

    @Test("A removed guest's comments and likes go with them; counts follow", arguments: TestEngine.allCases)
    func removal(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await Self.party(app)
            let path = "/api/v1/photos/\(party.photoID)"
            #expect(try await app.call(.post, "\(path)/comments", json: ["text": "rude words"], token: party.tom).status == .created)
            #expect(try await app.call(.post, "\(path)/comments", json: ["text": "kind words"], token: party.organizer).status == .created)
            #expect(try await app.call(.put, "\(path)/like", token: party.tom).status == .ok)
            let guests = Self.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/guests", token: party.organizer))
            let tomID = try #require(guests.first { $0["name"] as? String == "Tom" }?["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/events/\(party.eventID)/guests/\(tomID)", token: party.organizer).status == .noContent)

            let photo = try await app.call(.get, path, token: party.maggie)
            #expect(photo["commentCount"] as? Int == 1 && photo["likeCount"] as? Int == 0, "\(photo.text)")
            #expect(Self.items(try await app.call(.get, "\(path)/comments", token: party.maggie)).map { $0["text"] as? String } == ["kind words"])
        }
    }

    @Test("Writing is rate-limited per person", arguments: [TestEngine.sqlite])
    func rateLimit(engine: TestEngine) async throws {
        // The service's burst of 30, refilled slowly enough that a loaded machine cannot earn a 31st.
        try await TestApp.run(engine, configure: { $0.limits.guestbookWrites = .init(burst: 30, refillEvery: .seconds(3600)) }) { app in
            let party = try await Self.party(app)
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<31 {
                statuses.append(try await app.call(index % 2 == 0 ? .put : .delete, "/api/v1/photos/\(party.photoID)/like", token: party.tom).status)
            }
            #expect(statuses.prefix(30).allSatisfy { $0 == .ok } && statuses.last == .tooManyRequests, "\(statuses)")
            // Others are not slowed down by Tom.
            #expect(try await app.call(.put, "/api/v1/photos/\(party.photoID)/like", token: party.maggie).status == .ok)
        }
    }
}
