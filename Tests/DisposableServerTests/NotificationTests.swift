import Foundation
import HTTPTypes
import Logging
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// SOC-3: the bell — a like or a comment on my post, the reveal, the coming deletion (RET-3) — through HTTP, with
/// who is told what, marking read, a guest's removal, and the one live stream per tab.
@Suite("Notifications (SOC-3)")
struct NotificationTests {
    static func page(_ app: TestApp, _ token: String) async throws -> APIResponse {
        try await app.call(.get, "/api/v1/notifications", token: token)
    }

    static func announcer(_ app: TestApp) -> ClockAnnouncer {
        ClockAnnouncer(
            transactions: Transactions(app.services.database), events: EventRepository(database: Database(app.services.database)),
            changes: app.services.changes, clock: app.clock, started: app.services.started,
            logger: Logger(label: "test"), retention: app.services.configuration.retention)
    }

    @Test("A like or a comment on my post tells me, once, by name; taken back, the notice goes too", arguments: TestEngine.allCases)
    func reactions(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await GuestbookTests.party(app)
            let path = "/api/v1/photos/\(party.photoID)"
            #expect(try await app.call(.put, "\(path)/like", token: party.tom).status == .ok)
            #expect(try await app.call(.put, "\(path)/like", token: party.tom).status == .ok, "idempotent: told once")
            #expect(try await app.call(.put, "\(path)/like", token: party.maggie).status == .ok, "her own like tells nobody")
            app.clock.advance(by: 5)
            let comment = try await app.call(.post, "\(path)/comments", json: ["text": "What a <b>shot</b>"], token: party.organizer)
            #expect(comment.status == .created)

            let maggie = try await Self.page(app, party.maggie)
            let items = GuestbookTests.items(maggie)
            #expect(maggie["unreadCount"] as? Int == 2, "\(maggie.text)")
            #expect(items.map { $0["kind"] as? String } == ["commented", "liked"], "newest first")
            #expect(items.map { $0["actorName"] as? String } == ["Olivia", "Tom"])
            #expect(items.first?["text"] as? String == "What a <b>shot</b>" && items.allSatisfy { $0["photoId"] as? String == party.photoID })
            #expect(items.allSatisfy { $0["eventId"] as? String == party.eventID && $0["read"] as? Bool == false && $0["eventCode"] != nil })
            // Worded once, on the server, in the reader's language, with the page each opens (the bell shows them).
            let event = try #require(items.first?["eventName"] as? String)
            let post = "/e/\(try #require(items.first?["eventCode"] as? String))#post=\(party.photoID)"
            #expect(
                items.map { $0["message"] as? String } == [
                    "Olivia commented on your post in \(event): “What a <b>shot</b>”", "Tom liked your post in \(event)",
                ])
            #expect(items.allSatisfy { $0["link"] as? String == post }, "\(maggie.text)")
            let french = GuestbookTests.items(
                try await app.call(.get, "/api/v1/notifications", token: party.maggie, headers: [.acceptLanguage: "fr-FR,fr;q=0.9"]))
            #expect(french.last?["message"] as? String == "Tom a aimé votre publication dans \(event)", "\(french)")
            for other in [party.tom, party.organizer] {
                let theirs = try await Self.page(app, other)
                #expect(GuestbookTests.items(theirs).isEmpty && theirs["unreadCount"] as? Int == 0, "only the post's author is told")
            }

            // Taken back: the like's notice goes; the comment's goes with the comment.
            #expect(try await app.call(.delete, "\(path)/like", token: party.tom).status == .ok)
            let commentID = try #require(comment.string("id"))
            #expect(try await app.call(.delete, "/api/v1/comments/\(commentID)", token: party.organizer).status == .noContent)
            let after = try await Self.page(app, party.maggie)
            #expect(GuestbookTests.items(after).isEmpty && after["unreadCount"] as? Int == 0, "\(after.text)")
        }
    }

    @Test("Marking read: these ones or all, only one's own; bad input refused", arguments: TestEngine.allCases)
    func markingRead(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await GuestbookTests.party(app)
            let path = "/api/v1/photos/\(party.photoID)"
            for words in ["one", "two", "three"] {
                #expect(try await app.call(.post, "\(path)/comments", json: ["text": words], token: party.tom).status == .created)
                app.clock.advance(by: 1)
            }
            let ids = GuestbookTests.items(try await Self.page(app, party.maggie)).compactMap { $0["id"] as? String }
            #expect(ids.count == 3)

            // Tom cannot mark Maggie's read.
            let tomTries = try await app.call(.post, "/api/v1/notifications/read", json: ["ids": ids], token: party.tom)
            #expect(tomTries.status == .ok && tomTries["unreadCount"] as? Int == 0)
            #expect(try await Self.page(app, party.maggie)["unreadCount"] as? Int == 3)

            let one = try await app.call(.post, "/api/v1/notifications/read", json: ["ids": [ids[0]]], token: party.maggie)
            #expect(one["unreadCount"] as? Int == 2, "\(one.text)")
            let page = GuestbookTests.items(try await Self.page(app, party.maggie))
            #expect(page.map { $0["read"] as? Bool } == [true, false, false])
            #expect(try await app.call(.post, "/api/v1/notifications/read", json: [String: Any](), token: party.maggie)["unreadCount"] as? Int == 0)

            // Paging, newest first.
            let first = try await app.call(.get, "/api/v1/notifications?limit=2", token: party.maggie)
            let cursor = try #require(first.string("nextCursor"))
            let second = try await app.call(.get, "/api/v1/notifications?limit=2&cursor=\(cursor)", token: party.maggie)
            #expect((GuestbookTests.items(first) + GuestbookTests.items(second)).compactMap { $0["id"] as? String } == ids)

            // Hostile input.
            try await app.call(.get, "/api/v1/notifications").expectProblem(.unauthorized)
            try await app.call(.post, "/api/v1/notifications/read", json: ["ids": []]).expectProblem(.unauthorized)
            try await app.call(.get, "/api/v1/notifications?cursor=nonsense", token: party.maggie).expectProblem(.unprocessableContent)
            try await app.call(.get, "/api/v1/notifications?limit=100000", token: party.maggie).expectProblem(.unprocessableContent)
            let tooMany = (0...500).map { "id\($0)" }
            try await app.call(.post, "/api/v1/notifications/read", json: ["ids": tooMany], token: party.maggie).expectProblem(.unprocessableContent)
            try await app.call(.post, "/api/v1/notifications/read", json: ["ids": [String(repeating: "x", count: 65)]], token: party.maggie)
                .expectProblem(.unprocessableContent)
            try await app.call(.post, "/api/v1/notifications/read", json: ["ids": "all"], token: party.maggie).expectProblem(.badRequest)
            try await app.call(.post, "/api/v1/notifications/read", json: ["all": true], token: party.maggie).expectProblem(.badRequest)
        }
    }

    @Test("The reveal, the recap and the coming deletion tell everyone in the event, co-organizers too, once", arguments: TestEngine.allCases)
    func revealAndDeletion(engine: TestEngine) async throws {
        try await TestApp.run(engine, configure: { $0.retention = 10 * 86_400 }) { app in
            let party = try await GuestbookTests.party(app, settings: ["reveal": ["mode": "at-end"]])
            let coOrganizer = try await app.coOrganizer(of: party.eventID, owner: party.organizer).token
            let guests = GuestbookTests.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/guests", token: party.organizer))
            let tomID = try #require(guests.first { $0["name"] as? String == "Tom" }?["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/events/\(party.eventID)/guests/\(tomID)", token: party.organizer).status == .noContent)
            let announcer = Self.announcer(app)
            try await announcer.announceDueMoments()
            #expect(GuestbookTests.items(try await Self.page(app, party.maggie)).isEmpty, "nothing before the end")

            app.clock.advance(by: 24 * 3600 + 1)  // the event ends: its photos are revealed, and its recap is ready (CAP-1)
            try await announcer.announceDueMoments()
            try await announcer.announceDueMoments()
            for token in [party.maggie, party.organizer, coOrganizer] {
                let kinds = GuestbookTests.items(try await Self.page(app, token)).compactMap { $0["kind"] as? String }
                #expect(kinds.count == 2 && Set(kinds) == ["revealed", "recap"], "\(kinds)")
            }

            // Seven days later (three before the deletion): everyone is told when, once.
            app.clock.advance(by: 7 * 86_400)
            try await announcer.announceDueMoments()
            try await announcer.announceDueMoments()
            let items = GuestbookTests.items(try await Self.page(app, party.maggie))
            let kinds = items.compactMap { $0["kind"] as? String }
            #expect(kinds.first == "ending-soon" && Set(kinds.dropFirst()) == ["revealed", "recap"] && kinds.count == 3, "\(kinds)")
            let event = try await app.call(.get, "/api/v1/events/\(party.eventID)", token: party.maggie)
            #expect(items.first?["deletesAt"] as? String == event.string("deletesAt"), "\(items)")
            #expect(GuestbookTests.items(try await Self.page(app, party.organizer)).count == 3)
            #expect(GuestbookTests.items(try await Self.page(app, coOrganizer)).count == 3)
        }
    }

    @Test("A removed guest's notices go, and so do those their likes and comments gave", arguments: TestEngine.allCases)
    func removal(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let party = try await GuestbookTests.party(app)
            let tomPhoto = try #require(
                try await app.upload(try await TestImages.jpeg(width: 300, height: 200), event: party.eventID, token: party.tom).string("id"))
            _ = try await app.waitUntilProcessed(tomPhoto, token: party.tom)
            #expect(try await app.call(.put, "/api/v1/photos/\(tomPhoto)/like", token: party.maggie).status == .ok)
            #expect(try await app.call(.put, "/api/v1/photos/\(party.photoID)/like", token: party.tom).status == .ok)
            #expect(GuestbookTests.items(try await Self.page(app, party.tom)).count == 1)
            let guests = GuestbookTests.items(try await app.call(.get, "/api/v1/events/\(party.eventID)/guests", token: party.organizer))
            let tomID = try #require(guests.first { $0["name"] as? String == "Tom" }?["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/events/\(party.eventID)/guests/\(tomID)", token: party.organizer).status == .noContent)
            #expect(GuestbookTests.items(try await Self.page(app, party.maggie)).isEmpty, "Tom's like and its notice are gone")
            let count = try await app.services.database.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM notifications WHERE recipient_id = \(bind: tomID)").first()?.decode(
                    column: "n", as: Int.self)
            }
            #expect(count == 0)
        }
    }

    @Test("One stream per tab: new notices and the unread count arrive live, for every event of the person", arguments: TestEngine.allCases)
    func stream(engine: TestEngine) async throws {
        try await TestApp.run(engine, live: true) { app in
            let party = try await GuestbookTests.party(app)
            let port = try #require(app.client.port)
            let url = "http://127.0.0.1:\(port)/api/v1/notifications"
            let stream = try await SSEClient.connect(url, token: party.maggie)
            #expect(stream.status == 200)
            let start = try #require(try await stream.next())
            #expect(start.name == "unread" && start.json["unreadCount"] as? Int == 0)

            #expect(try await app.call(.put, "/api/v1/photos/\(party.photoID)/like", token: party.tom).status == .ok)
            let notice = try #require(try await stream.next())
            #expect(notice.name == "notification" && notice.json["kind"] as? String == "liked" && notice.json["actorName"] as? String == "Tom")
            let unread = try #require(try await stream.next())
            #expect(unread.name == "unread" && unread.json["unreadCount"] as? Int == 1)

            // Read in another tab: this one's bell follows.
            #expect(try await app.call(.post, "/api/v1/notifications/read", json: [String: Any](), token: party.maggie).status == .ok)
            let cleared = try #require(try await stream.next())
            #expect(cleared.name == "unread" && cleared.json["unreadCount"] as? Int == 0)

            // The organizer's stream hears of her own events, all on one connection.
            let organizerStream = try await SSEClient.connect(url, token: party.organizer)
            _ = try await organizerStream.next()
            let second = try await app.createEvent(token: party.organizer, ["durationHours": 24])
            let code = try #require(second["code"] as? String)
            let secondID = try #require(second["id"] as? String)
            let organizerPhoto = try #require(
                try await app.upload(try await TestImages.jpeg(), event: secondID, token: party.organizer).string("id"))
            _ = try await app.waitUntilProcessed(organizerPhoto, token: party.organizer)
            let zoe = try await app.guestToken(code: code, name: "Zoe")
            #expect(try await app.call(.put, "/api/v1/photos/\(organizerPhoto)/like", token: zoe).status == .ok)
            // A notice always comes before the count that includes it.
            let heard = try #require(try await organizerStream.next())
            #expect(heard.name == "notification" && heard.json["eventId"] as? String == secondID, "\(heard.name ?? "") \(heard.data)")
            try await app.call(.get, "/api/v1/notifications", token: nil, headers: [.accept: "text/event-stream"]).expectProblem(.unauthorized)

            // Pages a browser left are not announced: the newest streams of a session win, the oldest stop.
            var newer: [SSEClient] = []
            for _ in 0..<6 { newer.append(try await SSEClient.connect(url, token: party.maggie)) }
            for client in newer { _ = try await client.next() }
            let deadline = ContinuousClock.now + .seconds(30)
            while !stream.ended && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(stream.ended, "the oldest of seven streams is closed")
            #expect(!newer.contains { $0.ended })
        }
    }
}
