import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// What a WebDAV client could do to a library by mistake or on purpose: copy a file onto the folder that holds it,
/// send a body in another encoding, name one file in two Unicode forms.
@Suite("WebDAV safety")
struct WebDAVSafetyTests {
    @Test("COPY or MOVE of a file onto the folder that holds it is refused and nothing is deleted", arguments: ["COPY", "MOVE"])
    func ontoOwnFolder(method: String) async throws {
        try await TestApp.run(.sqlite) { app in
            // setup
            let (token, dav) = try await app.davAccount(email: "ana@example.com")
            let photo = try await TestImages.jpeg(width: 400, height: 300)
            #expect(try await dav("MKCOL", "/dav/library/t").status == .created)
            #expect(try await dav("MKCOL", "/dav/library/t/sub").status == .created)
            #expect(try await dav("PUT", "/dav/library/t/sub/p.jpg", body: photo).status == .created)
            #expect(try await dav("PUT", "/dav/library/t/sub/notes.txt", body: "keep me").status == .created)

            // MUT
            for target in ["t/sub", "t", ""] {
                let destination: HTTPFields = [.init("Destination")!: "http://disposable.test/dav/library/\(target)"]
                let answer = try await dav(method, "/dav/library/t/sub/p.jpg", headers: destination)

                // validate
                #expect(answer.status == .forbidden, "\(method) onto /\(target): \(answer.status)")
            }
            #expect(Data(buffer: try await dav("GET", "/dav/library/t/sub/p.jpg").body) == photo)
            #expect(String(buffer: try await dav("GET", "/dav/library/t/sub/notes.txt").body) == "keep me")
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: token)).count == 1)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/trash", token: token)).isEmpty)
        }
    }

    @Test("A PROPPATCH or PROPFIND body that is not UTF-8 is refused, so no DTD hides in another encoding")
    func onlyUTF8Bodies() async throws {
        try await TestApp.run(.sqlite) { app in
            let (_, dav) = try await app.davAccount(email: "ana@example.com")
            #expect(try await dav("PUT", "/dav/library/mine.txt", body: "ana").status == .created)
            let hostile = """
                <?xml version="1.0" encoding="UTF-16"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
                <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><Z:note xmlns:Z="urn:z">&x;</Z:note></D:prop></D:set></D:propertyupdate>
                """
            var utf16 = Data([0xFF, 0xFE])
            utf16.append(hostile.data(using: .utf16LittleEndian)!)
            #expect(try await dav("PROPPATCH", "/dav/library/mine.txt", body: utf16).status == .badRequest)
            #expect(try await dav("PROPPATCH", "/dav/library/mine.txt", body: hostile.data(using: .utf16BigEndian)!).status == .badRequest)
            let utf7 = #"<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE r+AD4-<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#
            #expect(try await dav("PROPFIND", "/dav/library/", headers: WebDAVTests.depth1, body: utf7).status == .badRequest)
            let lower = #"<?xml version="1.0"?><!doctype r><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#
            #expect(try await dav("PROPFIND", "/dav/library/", headers: WebDAVTests.depth1, body: lower).status == .badRequest)
            // UTF-8, declared or not, is read
            let fine = #"<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#
            #expect(try await dav("PROPFIND", "/dav/library/", headers: WebDAVTests.depth1, body: fine).status.code == 207)
        }
    }

    @Test("A name sent composed (NFC) or decomposed (NFD) is one file, and MOVE between the two forms is not refused")
    func oneNormalForm() async throws {
        try await TestApp.run(.sqlite) { app in
            let (_, dav) = try await app.davAccount(email: "ana@example.com")
            let composed = "caf%C3%A9.txt"  // é as one code point
            let decomposed = "cafe%CC%81.txt"  // e + combining acute accent, as macOS writes it
            #expect(try await dav("PUT", "/dav/library/\(decomposed)", body: "one").status == .created)
            #expect(try await dav("PUT", "/dav/library/\(composed)", body: "two").status == .noContent)
            #expect(String(buffer: try await dav("GET", "/dav/library/\(decomposed)").body) == "two")
            let listing = String(buffer: try await dav("PROPFIND", "/dav/library/", headers: WebDAVTests.depth1).body)
            #expect(listing.components(separatedBy: "<D:href>").count - 1 == 2, "\(listing)")  // the library and one file
            #expect(listing.contains("/dav/library/\(composed)"), "\(listing)")
            // A move from one form to the other names the same place: onto itself
            let onto: HTTPFields = [.init("Destination")!: "http://disposable.test/dav/library/\(composed)"]
            #expect(try await dav("MOVE", "/dav/library/\(decomposed)", headers: onto).status == .forbidden)
            #expect(try await dav("GET", "/dav/library/\(composed)").status == .ok)
        }
    }

    @Test("A name kept decomposed before (a Mac's) is composed at start, and found again in either form", arguments: TestEngine.allCases)
    func olderNamesComposed(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            // setup: a file and a folder as an older server kept them, decomposed
            let (_, dav) = try await app.davAccount(email: "ana@example.com")
            #expect(try await dav("MKCOL", "/dav/library/cafe%CC%81").status == .created)
            #expect(try await dav("PUT", "/dav/library/cafe%CC%81/the%CC%81.txt", body: "tea").status == .created)
            let decomposed = ("cafe\u{301}", "cafe\u{301}/the\u{301}.txt")
            try await app.services.database.sql { db in
                try await db.raw("UPDATE dav_entries SET path = \(bind: decomposed.0) WHERE path = 'caf\u{E9}'").run()
                try await db.raw(
                    "UPDATE dav_entries SET path = \(bind: decomposed.1), parent = \(bind: decomposed.0) WHERE path = 'caf\u{E9}/th\u{E9}.txt'"
                ).run()
            }
            #expect(try await dav("GET", "/dav/library/caf%C3%A9/th%C3%A9.txt").status == .notFound)

            // MUT: what the server does at start
            let names = try await app.services.dav.composeNames()

            // validate
            #expect(names.renamed == 2 && names.kept == 0, "\(names)")
            #expect(String(buffer: try await dav("GET", "/dav/library/caf%C3%A9/th%C3%A9.txt").body) == "tea")
            #expect(String(buffer: try await dav("GET", "/dav/library/cafe%CC%81/the%CC%81.txt").body) == "tea")
            let listing = String(buffer: try await dav("PROPFIND", "/dav/library/caf%C3%A9/", headers: WebDAVTests.depth1).body)
            #expect(listing.contains("/dav/library/caf%C3%A9/th%C3%A9.txt"), "\(listing)")
        }
    }

    @Test("A PUT without a length by an account over its quota is stopped where the quota ends, not after 50 MB")
    func chunkedPutStopsAtTheQuota() async throws {
        try await TestApp.run(.sqlite) { app in
            // setup: an account with 1 MB of quota
            let (token, _) = try await app.davAccount(email: "ana@example.com")
            let admin = try await app.adminToken()
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: token))["user"] as? [String: Any])?["id"] as? String)
            #expect(try await app.call(.patch, "/api/v1/admin/users/\(me)", json: ["quotaBytes": 1_000_000], token: admin).status == .ok)
            let user = try #require(try await app.services.accounts.user(id: me))
            let counter = ByteCounter()
            let body = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
                for _ in 0..<800 {  // 50 MB in 64 KB pieces, counted as the server pulls them
                    continuation.yield(ByteBuffer(repeating: 0x41, count: 65_536))
                }
                continuation.finish()
            }.map { chunk in
                counter.add(chunk.readableBytes)
                return chunk
            }

            // MUT
            await #expect(throws: Problem.self) {
                _ = try await app.services.dav.put("big.bin", body: RequestBody(asyncSequence: body), declaredLength: nil, for: user)
            }

            // validate: read no further than the quota and a piece
            #expect(counter.total <= 1_000_000 + 65_536, "\(counter.total) bytes read")
            let answer = try await app.dav(
                "PUT", "/dav/library/big.bin", email: "ana@example.com", password: try await app.appPassword(token: token),
                body: Data(count: 2_000_000))
            #expect(answer.status.code == 507, "\(answer.status)")
        }
    }
}

/// How many bytes a body gave, from whichever task reads it.
final class ByteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ bytes: Int) { lock.withLock { count += bytes } }
    var total: Int { lock.withLock { count } }
}
