import DisposableAPI
import Foundation
import HTTPTypes
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The library over WebDAV, spoken as clients speak it: folders made, photos put where the client wants them and
/// found there again byte for byte, the same bytes kept once, plain files kept apart from the timeline, deletes into
/// the trash; and what an attacker would send.
@Suite("WebDAV")
struct WebDAVTests {
    static let depth1: HTTPFields = [.init("Depth")!: "1"]

    @Test(
        "Photos put in folders are library assets found again byte for byte; the same bytes under two names are kept once; a path written over is the asset's next revision; deleting puts it in the trash",
        arguments: TestEngine.allCases)
    func photos(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let (token, dav) = try await app.davAccount(email: "ana@example.com")
            let photo = try await TestImages.jpeg(width: 400, height: 300)
            // No folder yet: 409, as RFC 4918 says
            #expect(try await dav("PUT", "/dav/library/DCIM/Camera/IMG_0001.jpg", body: photo).status == .conflict)
            #expect(try await dav("MKCOL", "/dav/library/DCIM/").status == .created)
            #expect(try await dav("MKCOL", "/dav/library/DCIM/Camera/").status == .created)
            #expect(try await dav("MKCOL", "/dav/library/DCIM/Camera/").status == .methodNotAllowed)
            let put = try await dav("PUT", "/dav/library/DCIM/Camera/IMG_0001.jpg", body: photo)
            #expect(put.status == .created, "\(put.text)")

            // Found again where it was put, byte for byte, with what clients compare
            let got = try await dav("GET", "/dav/library/DCIM/Camera/IMG_0001.jpg")
            #expect(got.status == .ok && Data(buffer: got.body) == photo && got.headers[.contentType] == "image/jpeg")
            let listing = try await dav("PROPFIND", "/dav/library/DCIM/Camera/", headers: Self.depth1)
            #expect(listing.status == .multiStatus)
            #expect(listing.hrefs == ["/dav/library/DCIM/Camera/", "/dav/library/DCIM/Camera/IMG_0001.jpg"])
            #expect(listing.text.contains("<D:getcontentlength>\(photo.count)</D:getcontentlength>"))
            let etag = try #require(got.headers[.eTag])
            #expect(listing.text.contains("<D:getetag>\(etag.replacingOccurrences(of: "\"", with: "&quot;"))</D:getetag>"))

            // In the library's timeline under the client's name
            let assets = try await app.call(.get, "/api/v1/library/assets", token: token)
            let items = assets["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1 && items.first?["fileName"] as? String == "IMG_0001.jpg")
            let id = try #require(items.first?["id"] as? String)

            // The same bytes under another name: shown there too, stored once
            #expect(try await dav("PUT", "/dav/library/DCIM/copy.jpg", body: photo).status == .created)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: token)) == [id])

            // Written over where only one path shows it: the same asset's next revision
            let edited = try await TestImages.jpeg(width: 401, height: 300)
            #expect(try await dav("PUT", "/dav/library/DCIM/Camera/IMG_0001.jpg", body: photo).status == .noContent)
            #expect(try await dav("MKCOL", "/dav/library/Edits/").status == .created)
            #expect(try await dav("PUT", "/dav/library/Edits/mine.jpg", body: try await TestImages.jpeg(width: 200, height: 100)).status == .created)
            let editedID = try #require(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: token)).first { $0 != id })
            #expect(try await dav("PUT", "/dav/library/Edits/mine.jpg", body: edited).status == .noContent)
            let revised = try await app.call(.get, "/api/v1/library/assets/\(editedID)", token: token)
            let readBack = Data(buffer: try await dav("GET", "/dav/library/Edits/mine.jpg").body)
            #expect(revised["fileRevision"] as? Int == 2 && readBack == edited)

            // Deleting one of two names keeps the photo; deleting the last puts it in the trash, restorable
            #expect(try await dav("DELETE", "/dav/library/DCIM/copy.jpg").status == .noContent)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/trash", token: token)).isEmpty)
            #expect(try await dav("DELETE", "/dav/library/DCIM/").status == .noContent)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/trash", token: token)) == [id])
            #expect(try await dav("GET", "/dav/library/DCIM/Camera/IMG_0001.jpg").status == .notFound)
            #expect(try await dav("DELETE", "/dav/library/DCIM/").status == .notFound)
        }
    }

    @Test(
        "Plain files are kept in the tree and count against the quota, never in the timeline, and come back only as attachments",
        arguments: TestEngine.allCases)
    func plainFiles(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let (token, dav) = try await app.davAccount(email: "ana@example.com")
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: token))["user"] as? [String: Any])?["id"] as? String)
            let used = { try await app.services.library.assets.usage(userID: me).map { Int($0.used) } }
            let page = Data("<html><script>alert(document.cookie)</script></html>".utf8)
            #expect(try await dav("PUT", "/dav/library/index.html", body: page).status == .created)
            #expect(try await dav("PUT", "/dav/library/.nomedia", body: Data()).status == .created)
            let got = try await dav("GET", "/dav/library/index.html")
            #expect(Data(buffer: got.body) == page)
            #expect(got.headers[.contentType] == "application/octet-stream" && got.headers[.contentDisposition] == "attachment")
            #expect(got.headers[.xContentTypeOptions] == "nosniff")
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: token)).isEmpty)
            #expect(try await used() == page.count)
            // Replaced, then deleted: the quota follows
            #expect(try await dav("PUT", "/dav/library/index.html", body: Data("short".utf8)).status == .noContent)
            #expect(try await used() == 5)
            #expect(try await dav("DELETE", "/dav/library/index.html").status == .noContent)
            #expect(try await used() == 0)
            // Moved and copied within; the copy is a file of its own
            #expect(try await dav("PUT", "/dav/library/a.txt", body: Data("alpha".utf8)).status == .created)
            #expect(try await dav("MKCOL", "/dav/library/folder").status == .created)
            let destination: HTTPFields = [.init("Destination")!: "https://disposable.test/dav/library/folder/b.txt"]
            #expect(try await dav("COPY", "/dav/library/a.txt", headers: destination).status == .created)
            var noOverwrite = destination
            noOverwrite[.init("Overwrite")!] = "F"
            #expect(try await dav("MOVE", "/dav/library/a.txt", headers: noOverwrite).status == .preconditionFailed)
            #expect(try await dav("MOVE", "/dav/library/a.txt", headers: destination).status == .noContent)
            #expect(try await dav("GET", "/dav/library/a.txt").status == .notFound)
            #expect(Data(buffer: try await dav("GET", "/dav/library/folder/b.txt").body) == Data("alpha".utf8))
            #expect(try await used() == 5)
        }
    }

    @Test("Hostile paths and bodies are refused; another person's paths are not there; Depth: infinity is refused; quotas hold through PUT")
    func hostile() async throws {
        try await TestApp.run(.sqlite) { app in
            let (token, dav) = try await app.davAccount(email: "ana@example.com")
            let (_, bens) = try await app.davAccount(email: "ben@example.com")
            #expect(try await dav("PUT", "/dav/library/mine.txt", body: Data("ana".utf8)).status == .created)
            // Ben's library is his own: Ana's file is not there
            #expect(try await bens("GET", "/dav/library/mine.txt").status == .notFound)
            let long = String(repeating: "a", count: 4000)
            for path in [
                "/dav/library/../library/mine.txt", "/dav/library/a%2Fb.txt", "/dav/library/a%00b.txt", "/dav/library/photo%E2%80%AEgpj.exe",
                "/dav/library/\(long).jpg", "/dav/library/%ZZ.txt", "/dav/library/a%5Cb.txt",
            ] {
                #expect(try await dav("PUT", path, body: Data("x".utf8)).status == .badRequest, "\(path.prefix(60))")
            }
            #expect(try await dav("PROPFIND", "/dav/library/", headers: [.init("Depth")!: "infinity"]).status == .forbidden)
            #expect(try await dav("PROPFIND", "/dav/library/").status == .forbidden)  // no Depth means infinity
            let bomb = """
                <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
                <D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&lol2;</D:displayname></D:prop></D:propfind>
                """
            #expect(try await dav("PROPFIND", "/dav/library/", headers: Self.depth1, body: Data(bomb.utf8)).status == .badRequest)
            let patchBomb = bomb.replacingOccurrences(of: "propfind", with: "propertyupdate")
            #expect(try await dav("PROPPATCH", "/dav/library/mine.txt", body: Data(patchBomb.utf8)).status == .badRequest)
            #expect(try await dav("PROPFIND", "/dav/library/", headers: Self.depth1, body: Data("<not xml".utf8)).status == .badRequest)
            #expect(try await dav("PROPFIND", "/dav/library/", headers: Self.depth1, body: Data(count: 70_000)).status == .contentTooLarge)
            #expect(
                try await dav("PUT", "/dav/library/part.txt", headers: [.contentRange: "bytes 0-0/10"], body: Data("x".utf8)).status
                    == .notImplemented)
            #expect(
                try await dav("MOVE", "/dav/library/mine.txt", headers: [.init("Destination")!: "https://elsewhere.test/api/v1/me"]).status
                    == .badGateway)
            #expect(try await dav("LOCK", "/dav/library/mine.txt").status == .methodNotAllowed)
            #expect(try await app.call(.get, "/api/v1/me", token: nil, headers: [.init("Depth")!: "1"]).status == .unauthorized)

            // The quota holds through PUT: a photo past it is refused with 507 and nothing is kept
            let admin = try await app.adminToken()
            let me = try #require(((try await app.call(.get, "/api/v1/me", token: token))["user"] as? [String: Any])?["id"] as? String)
            #expect(try await app.call(.patch, "/api/v1/admin/users/\(me)", json: ["quotaBytes": 1000], token: admin).status == .ok)
            let photo = try await TestImages.jpeg(width: 400, height: 300)
            #expect(try await dav("PUT", "/dav/library/big.jpg", body: photo).status == .insufficientStorage)
            #expect(try await dav("PUT", "/dav/library/big.bin", body: Data(count: 5000)).status == .insufficientStorage)
            #expect(try await dav("GET", "/dav/library/big.jpg").status == .notFound)
            #expect(LibraryTests.ids(try await app.call(.get, "/api/v1/library/assets", token: token)).isEmpty)
        }
    }

    @Test("Properties clients set are kept, moved with the path, removed; DAV's own cannot be set")
    func properties() async throws {
        try await TestApp.run(.sqlite) { app in
            let (_, dav) = try await app.davAccount(email: "ana@example.com")
            #expect(try await dav("PUT", "/dav/library/note.txt", body: "hi").status == .created)
            let set = """
                <?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example">
                <D:set><D:prop><Z:colour>blue &amp; 𐀀</Z:colour><Z:tree><leaf xmlns="urn:other">x</leaf></Z:tree></D:prop></D:set></D:propertyupdate>
                """
            let patched = try await dav("PROPPATCH", "/dav/library/note.txt", body: set)
            #expect(patched.status == .multiStatus && patched.text.contains("200 OK"), "\(patched.text)")
            let ask = #"<D:propfind xmlns:D="DAV:" xmlns:Z="urn:example"><D:prop><Z:colour/><Z:tree/><Z:missing/></D:prop></D:propfind>"#
            let got = try await dav("PROPFIND", "/dav/library/note.txt", headers: [.init("Depth")!: "0"], body: ask)
            #expect(got.text.contains(">blue &amp; 𐀀</p0:colour>") && got.text.contains(#"<leaf xmlns="urn:other">x</leaf>"#), "\(got.text)")
            #expect(got.text.contains("404 Not Found"))
            let protected =
                #"<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example"><D:set><D:prop><D:getetag>x</D:getetag><Z:a>1</Z:a></D:prop></D:set></D:propertyupdate>"#
            let refused = try await dav("PROPPATCH", "/dav/library/note.txt", body: protected)
            #expect(refused.text.contains("403 Forbidden") && refused.text.contains("424 Failed Dependency"))
            #expect(try await dav("MOVE", "/dav/library/note.txt", headers: [.init("Destination")!: "/dav/library/moved.txt"]).status == .created)
            let moved = try await dav("PROPFIND", "/dav/library/moved.txt", headers: [.init("Depth")!: "0"], body: ask)
            #expect(moved.text.contains(">blue &amp; 𐀀</p0:colour>"))
            let remove =
                #"<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example"><D:remove><D:prop><Z:colour/></D:prop></D:remove></D:propertyupdate>"#
            #expect(try await dav("PROPPATCH", "/dav/library/moved.txt", body: remove).status == .multiStatus)
            #expect(!(try await dav("PROPFIND", "/dav/library/moved.txt", headers: [.init("Depth")!: "0"], body: ask)).text.contains("blue"))
        }
    }

    @Test("Events are read-only folders of what each account may download there: its own photos as sent, others' without their location")
    func events() async throws {
        try await TestApp.run(.sqlite) { app in
            let olivia = try await app.userToken(email: "olivia@example.com")
            let tom = try await app.userToken(email: "tom@example.com")
            let ben = try await app.userToken(email: "ben@example.com")
            let event = try await app.createEvent(token: olivia, ["name": "Ana & Ben's wedding"])
            let eventID = event["id"] as! String
            let maggie = try await app.guestToken(code: event["code"] as! String)
            #expect(
                try await app.call(.post, "/api/v1/join", body: JoinRequest(code: event["code"] as! String, name: "Tom"), token: tom).status
                    == .created)
            let gps = ["-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E"]
            let maggies = try await TestImages.jpeg(width: 300, height: 200, exif: gps)
            let toms = try await TestImages.jpeg(width: 301, height: 200, exif: gps)
            for (photo, token) in [(maggies, maggie), (toms, tom)] {
                let id = try #require(try await app.upload(photo, event: eventID, token: token).string("id"))
                _ = try await app.waitUntilProcessed(id, token: token)
            }
            let secrets = (try await app.appPassword(token: olivia), try await app.appPassword(token: tom), try await app.appPassword(token: ben))
            let depth1 = Self.depth1
            let folder = try #require(
                try await app.dav("PROPFIND", "/dav/events/", email: "tom@example.com", password: secrets.1, headers: depth1).hrefs.last)
            #expect(folder.hasPrefix("/dav/events/Ana%20&%20Ben") && folder.hasSuffix("/"), "\(folder)")
            let path = folder
            let files = try await app.dav("PROPFIND", path, email: "tom@example.com", password: secrets.1, headers: depth1).hrefs.dropFirst()
            #expect(files.count == 2)
            var got: [Data] = []
            for file in files { got.append(Data(buffer: try await app.dav("GET", file, email: "tom@example.com", password: secrets.1).body)) }
            #expect(got.contains(toms), "his own as he sent it")
            let other = try #require(got.first { $0 != toms })
            #expect(other != maggies && other.count == maggies.count, "Maggie's without its location, same length")
            // The organizer sees both too; a stranger's list is empty and the path is not there for him
            #expect(try await app.dav("PROPFIND", path, email: "olivia@example.com", password: secrets.0, headers: depth1).hrefs.count == 3)
            #expect(
                try await app.dav("PROPFIND", "/dav/events/", email: "ben@example.com", password: secrets.2, headers: depth1).hrefs == [
                    "/dav/events/"
                ])
            #expect(try await app.dav("GET", files.first!, email: "ben@example.com", password: secrets.2).status == .notFound)
            // Read-only
            let put = try await app.dav("PUT", path + "new.jpg", email: "olivia@example.com", password: secrets.0, body: maggies)
            #expect(put.status == .forbidden)
            #expect(try await app.dav("DELETE", files.first!, email: "olivia@example.com", password: secrets.0).status == .forbidden)
        }
    }
}
