import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

@Suite("Signed thumbnail and preview links (PERF-3)")
struct MediaLinkTests {
    /// Over a real connection (`live`) the second request for a file is answered by `MediaShortcut` from memory,
    /// so every check below runs against both ways of answering.
    @Test(
        "A listed photo's links serve its files without a session; forged, expired and deleted ones do not",
        arguments: TestEngine.allCases, [false, true])
    func signedLinks(engine: TestEngine, live: Bool) async throws {
        try await TestApp.run(engine, live: live) { app in
            let f = try await UploadTests.fixture(app)
            let ids = try await GalleryTests.shoot(app, 2, event: f.event, token: f.guest)
            let page = try await app.call(.get, "/api/v1/events/\(f.event)/photos", token: f.organizer)
            let item = try #require((page["items"] as? [[String: Any]])?.first { $0["id"] as? String == ids[0] })
            let urls = try #require(item["urls"] as? [String: String])
            let thumbnail = try #require(urls["thumbnail"]), preview = try #require(urls["preview"])
            #expect(thumbnail.hasPrefix("/api/v1/media/\(f.event)/\(ids[0])/thumbnail.jpg?until="))
            #expect(urls["original"] == "/api/v1/photos/\(ids[0])/original", "originals stay behind the session check")

            // No token: the link is the grant. Same bytes as the session-checked address.
            for (link, name) in [(thumbnail, "thumbnail"), (preview, "preview")] {
                let signed = try await app.call(.get, link)
                #expect(signed.status == .ok, "\(signed.text)")
                #expect(signed.headers[.contentType] == "image/jpeg")
                #expect(signed.headers[.cacheControl]?.hasPrefix("private, max-age=") == true)
                let checked = try await app.call(.get, "/api/v1/photos/\(ids[0])/\(name)", token: f.guest)
                #expect(checked.status == .ok && signed.body == checked.body)
                #expect(signed.body.readableBytes > 500)
                let again = try await app.call(.get, link)
                #expect(again.status == .ok && again.body == signed.body)
                #expect(Self.describing(again.headers) == Self.describing(signed.headers), "answered from memory as from the file")
                let etag = try #require(signed.headers[.eTag])
                #expect(try await app.call(.get, link, headers: [.ifNoneMatch: etag]).status == .notModified)
            }

            // Forged: another signature, the signature moved to another photo, a later expiry.
            let signature = try #require(thumbnail.split(separator: "sig=").last.map(String.init))
            let flipped = String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0")
            try await app.call(.get, thumbnail.replacingOccurrences(of: signature, with: flipped)).expectProblem(.forbidden)
            try await app.call(.get, thumbnail.replacingOccurrences(of: ids[0], with: ids[1])).expectProblem(.forbidden)
            let until = try #require(thumbnail.split(separator: "until=").last?.split(separator: "&").first.map(String.init))
            try await app.call(.get, thumbnail.replacingOccurrences(of: "until=\(until)", with: "until=\(Int64(until)! + 86_400)"))
                .expectProblem(.forbidden)
            try await app.call(.get, thumbnail.replacingOccurrences(of: "thumbnail.jpg", with: "original")).expectProblem(.forbidden)
            try await app.call(.get, thumbnail.replacingOccurrences(of: "/\(ids[0])/", with: "/..%2F..%2Fetc/")).expectProblem(.forbidden)

            // The change feed's photos carry working links too (signed when sent, not when stored).
            let changes = try await app.call(
                .get, "/api/v1/events/\(f.event)/changes?since=0", token: f.guest, headers: [.accept: "application/json"])
            let fedLinks = (changes["items"] as? [[String: Any]] ?? []).compactMap { entry -> String? in
                ((entry["change"] as? [String: Any])?["photo"] as? [String: Any]).flatMap { ($0["urls"] as? [String: Any])?["thumbnail"] as? String }
            }
            #expect(!fedLinks.isEmpty && fedLinks.allSatisfy { $0.hasPrefix("/api/v1/media/") })
            #expect(try await app.call(.get, try #require(fedLinks.last)).status == .ok)

            // A day later the old link has expired; the API hands out fresh ones.
            app.clock.advance(by: 25 * 3600)
            let expired = try await app.call(.get, thumbnail)
            expired.expectProblem(.forbidden)
            #expect(expired.string("type")?.hasSuffix("media-link-expired") == true)
            let fresh = try await app.call(.get, "/api/v1/photos/\(ids[0])", token: f.organizer)
            let freshLink = try #require((fresh["urls"] as? [String: Any])?["thumbnail"] as? String)
            #expect(freshLink != thumbnail)
            #expect(try await app.call(.get, freshLink).status == .ok)

            // Deleted: the link stops at once, though it has not expired.
            #expect(try await app.call(.delete, "/api/v1/photos/\(ids[0])", token: f.guest).status == .noContent)
            let gone = try await app.call(.get, freshLink)
            gone.expectProblem(.notFound)
        }
    }

    @Test("A link answered from memory waits for the answers to the requests sent before it on the connection")
    func pipelinedAnswersKeepTheirOrder() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let link = try await Self.thumbnailLinkInMemory(app)

            // Three requests in one write: the status (a database query), the thumbnail, the status again.
            let port = try #require(app.client.port)
            let request = { (path: String) in "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }
            let answers = try await RawHTTP.exchange(port: port, request("/healthz") + request(link) + request("/healthz"), responses: 3)
            #expect(answers.map(\.contentType) == ["application/json; charset=utf-8", "image/jpeg", "application/json; charset=utf-8"])
            #expect(answers.map(\.status) == [200, 200, 200])
        }
    }

    /// `RequestShortcut` reads requests before the HTTP decoder does; it must cut the stream where the decoder
    /// does, or a body could be taken for a request (smuggling) and answers would go to the wrong requests.
    @Test("The shortcut cuts requests where the decoder does: bodies, chunked bodies, heads arriving byte by byte")
    func shortcutKeepsRequestBoundaries() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let link = try await Self.thumbnailLinkInMemory(app)
            let thumbnail = try await app.call(.get, link)
            let port = try #require(app.client.port)
            let get = { (path: String) in "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }
            let json = "application/json; charset=utf-8", problem = "application/problem+json", image = "image/jpeg"

            // A body that reads like a request for the link is a body: the sign-in refuses it, nothing else answers.
            let smuggled = get(link)
            let withBody =
                "POST /api/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n\(smuggled)"
            var answers = try await RawHTTP.exchange(port: port, withBody + get("/healthz") + get(link), responses: 3)
            #expect(answers.map(\.contentType) == [problem, json, image])
            #expect(answers[2].body.elementsEqual(thumbnail.body.readableBytesView), "the thumbnail's bytes")

            // A chunked body: the shortcut steps aside for the rest of the connection, the router answers the link.
            let chunked =
                "POST /api/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(smuggled.utf8.count, radix: 16) + "\r\n" + smuggled + "\r\n0\r\n\r\n"
            answers = try await RawHTTP.exchange(port: port, chunked + get(link) + get("/healthz"), responses: 3)
            #expect(answers.map(\.contentType) == [problem, image, json])

            // Heads and bodies cut into small pieces, as a slow network delivers them.
            for pieceSize in [1, 7] {
                answers = try await RawHTTP.exchange(port: port, get(link) + withBody + get(link), responses: 3, pieceSize: pieceSize)
                #expect(answers.map(\.contentType) == [image, problem, image], "pieces of \(pieceSize) bytes")
                #expect(answers.map(\.status) == [200, 400, 200], "pieces of \(pieceSize) bytes")
            }

            // Heads no strict reader accepts go to the decoder, which refuses them as before.
            for bad in [
                "GET \(link) HTTP/1.1\nHost: x\n\n", "GET \(link) HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
                "GET \(link) HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            ] {
                let answer = try await RawHTTP.exchange(port: port, bad + get("/healthz"), responses: 1)
                #expect(answer.first?.contentType != image, "\(bad.debugDescription)")
            }
        }
    }

    /// A photo's signed thumbnail link, fetched once so that its file is in memory (answered by the shortcut).
    static func thumbnailLinkInMemory(_ app: TestApp) async throws -> String {
        let f = try await UploadTests.fixture(app)
        let ids = try await GalleryTests.shoot(app, 1, event: f.event, token: f.guest)
        let photo = try await app.call(.get, "/api/v1/photos/\(ids[0])", token: f.organizer)
        let link = try #require((photo["urls"] as? [String: Any])?["thumbnail"] as? String)
        #expect(try await app.call(.get, link).status == .ok)
        return link
    }

    /// The headers that describe the file (not the time of the answer).
    static func describing(_ headers: HTTPFields) -> [String] {
        headers.filter { $0.name != .date }.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
    }
}
