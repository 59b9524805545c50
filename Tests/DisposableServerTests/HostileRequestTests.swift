import DisposableServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// SEC-2 beyond the broken files of MED-3: files that are valid images carrying something nasty, names and
/// headers made to break out, wrong Content-Types. Each gets a clear 4xx or is stored defanged; the server
/// stays up, nothing stray is kept, no page or JSON reflects a payload unescaped, and every response carries
/// `nosniff` (HTML pages a Content-Security-Policy).
@Suite("Hostile requests (SEC-2)")
struct HostileRequestTests {
    /// A real image that carries a payload: accepted, and it must not survive into what we serve.
    struct Carrier: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () async throws -> Data
        /// Bytes that must appear in no derivative and no page.
        let payload: String
        var testDescription: String { name }
    }

    static let carriers: [Carrier] = [
        Carrier(
            name: "PNG with a 200 MB zTXt bomb", make: { try await pngWithChunk("zTXt", Array("Comment".utf8) + [0, 0] + zlibZeros(200_000_000)) },
            payload: "Comment"),
        Carrier(
            name: "PNG with a 5 MB iCCP profile of junk",
            make: { try await pngWithChunk("iCCP", Array("evil".utf8) + [0, 0] + zlibZeros(5_000_000)) },
            payload: "evil"),
        Carrier(
            name: "JPEG/HTML polyglot",
            make: { try await jpegWithSegment(0xFE, Data("<html><body><script>alert('polyglot')</script></body></html>".utf8)) },
            payload: "<script>"),
        Carrier(name: "JPEG with a 3 MB ICC profile", make: { try await jpegWithICC(bytes: 3_000_000) }, payload: "JUNKPROFILE"),
        Carrier(
            name: "JPEG with XSS in EXIF fields",
            make: {
                try await TestImages.jpeg(exif: [
                    "-Artist=<script>alert('artist')</script>", "-ImageDescription=<img src=x onerror=alert(2)>",
                    "-Copyright=\"><svg onload=alert(3)>",
                ])
            }, payload: "alert("),
    ]

    @Test("Images carrying payloads are stored defanged and served as images", arguments: carriers)
    func carrier(_ carrier: Carrier) async throws {
        try await TestApp.run(.sqlite) { app in
            let f = try await UploadTests.fixture(app)
            let uploaded = try await app.upload(try await carrier.make(), event: f.event, token: f.guest)
            #expect(uploaded.headers[.xContentTypeOptions] == "nosniff")
            if uploaded.status.code >= 400 {
                uploaded.expectProblem(uploaded.status)
                #expect((400..<500).contains(Int(uploaded.status.code)))
                #expect(app.storedFiles().isEmpty)
            } else {
                let id = try #require(uploaded.string("id"))
                let photo = try await app.waitUntilProcessed(id, token: f.guest)
                let status = try #require(photo.string("status"))
                #expect(["ready", "failed"].contains(status))
                if status == "ready" {
                    for kind in ["preview", "thumbnail"] {
                        let derivative = try await app.call(.get, "/api/v1/photos/\(id)/\(kind)", token: f.guest)
                        #expect(derivative.headers[.contentType] == "image/jpeg")
                        #expect(Data(buffer: derivative.body).range(of: Data(carrier.payload.utf8)) == nil, "\(kind) keeps the payload")
                        #expect(derivative.body.readableBytes < 1_000_000, "\(kind) is \(derivative.body.readableBytes) bytes")
                    }
                    let original = try await app.call(.get, "/api/v1/photos/\(id)/original", token: f.guest)
                    #expect(original.headers[.contentType]?.hasPrefix("image/") == true)
                    #expect(original.headers[.xContentTypeOptions] == "nosniff")
                    #expect(original.headers[.contentDisposition]?.hasPrefix("attachment") == true)
                }
            }
            let gallery = try await app.call(.get, "/api/v1/events/\(f.event)/photos?mine=true", token: f.guest)
            #expect(!gallery.text.contains(carrier.payload) || carrier.payload == "Comment" || carrier.payload == "evil")
            #expect(try await app.call(.get, "/healthz").status == .ok, "the server is still up")
        }
    }

    struct Refused: @unchecked Sendable, CustomTestStringConvertible {
        let name: String
        let path: String
        let body: @Sendable () async throws -> Data
        let headers: HTTPFields
        let status: HTTPResponse.Status
        var testDescription: String { name }

        init(name: String, path: String, body: @escaping @Sendable () async throws -> Data, headers: HTTPFields, status: HTTPResponse.Status) {
            (self.name, self.path, self.body, self.headers, self.status) = (name, path, body, headers, status)
        }

        init(name: String, path: String, body: Data, headers: HTTPFields, status: HTTPResponse.Status) {
            self.init(name: name, path: path, body: { body }, headers: headers, status: status)
        }
    }

    static func join(_ name: String) -> Data {
        try! JSONSerialization.data(withJSONObject: ["code": "{code}", "name": name])
    }

    static let refused: [Refused] = [
        Refused(
            name: "SVG with an XXE entity", path: "/api/v1/events/{id}/photos",
            body: Data(
                "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><svg xmlns=\"http://www.w3.org/2000/svg\"><text>&xxe;</text></svg>"
                    .utf8),
            headers: [.contentType: "image/svg+xml"], status: .unsupportedMediaType),
        Refused(
            name: "a real JPEG declared as text/html", path: "/api/v1/events/{id}/photos", body: { try await TestImages.jpeg(width: 80, height: 60) },
            headers: [.contentType: "text/html"], status: .unsupportedMediaType),
        Refused(
            name: "an HTML page declared as image/jpeg", path: "/api/v1/events/{id}/photos",
            body: Data("<html><script>alert(1)</script></html>".utf8), headers: [.contentType: "image/jpeg"], status: .unsupportedMediaType),
        Refused(
            name: "JSON sent to the photo endpoint", path: "/api/v1/events/{id}/photos", body: Data("{\"photo\": \"x\"}".utf8),
            headers: [.contentType: "application/json"], status: .unsupportedMediaType),
        Refused(
            name: "a join sent as a form", path: "/api/v1/join", body: Data("code={code}&name=Ana".utf8),
            headers: [.contentType: "application/x-www-form-urlencoded"], status: .unsupportedMediaType),
        Refused(
            name: "a name of 1,000 characters", path: "/api/v1/join", body: join(String(repeating: "a", count: 1000)),
            headers: [.contentType: "application/json"], status: .unprocessableContent),
        Refused(
            name: "a 10 KB name", path: "/api/v1/join", body: join(String(repeating: "é", count: 5000)),
            headers: [.contentType: "application/json"], status: .unprocessableContent),
        Refused(
            name: "a name with U+202E", path: "/api/v1/join", body: join("Ana\u{202E}gpj.exe"),
            headers: [.contentType: "application/json"], status: .unprocessableContent),
        Refused(
            name: "a name with NUL", path: "/api/v1/join", body: join("Ana\u{0}admin"),
            headers: [.contentType: "application/json"], status: .unprocessableContent),
        Refused(
            name: "a name with CRLF", path: "/api/v1/join", body: join("Ana\r\nSet-Cookie: admin=1"),
            headers: [.contentType: "application/json"], status: .unprocessableContent),
        Refused(
            name: "JSON nested 10,000 deep", path: "/api/v1/join",
            body: Data((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8),
            headers: [.contentType: "application/json"], status: .badRequest),
        Refused(
            name: "JSON objects nested 5,000 deep", path: "/api/v1/join",
            body: Data((String(repeating: "{\"a\":", count: 5_000) + "1" + String(repeating: "}", count: 5_000)).utf8),
            headers: [.contentType: "application/json"], status: .badRequest),
        Refused(
            name: "1 MB of JSON", path: "/api/v1/join", body: join(String(repeating: "x", count: 1_000_000)),
            headers: [.contentType: "application/json"], status: .contentTooLarge),
    ]

    @Test("Hostile requests get a clear 4xx problem and store nothing", arguments: refused)
    func refusedRequest(_ hostile: Refused) async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let guest = try await app.guestToken(code: event["code"] as! String)
            let path = hostile.path.replacingOccurrences(of: "{id}", with: event["id"] as! String)
            let raw = try await hostile.body()
            let body =
                String(decoding: raw, as: UTF8.self).contains("{code}")
                ? Data(String(decoding: raw, as: UTF8.self).replacingOccurrences(of: "{code}", with: event["code"] as! String).utf8)
                : raw
            var headers = hostile.headers
            headers[.authorization] = "Bearer \(guest)"
            let response = try await app.client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(data: body)) {
                APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
            }
            response.expectProblem(hostile.status)
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(!response.text.contains("<script>") && !response.text.contains("\u{202E}"), "the problem reflects the payload")
            #expect(app.storedFiles().isEmpty)
            let guests = try await app.call(.get, "/api/v1/events/\(event["id"] as! String)", token: organizer)
            #expect(guests["guestCount"] as? Int == 1, "no guest was added")
            #expect(try await app.call(.get, "/healthz").status == .ok)
        }
    }

    @Test("Names that look like paths or scripts are kept as text: safe file names, escaped pages")
    func namesAsText() async throws {
        try await TestApp.run(.sqlite) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            for name in ["../../etc/passwd", "<script>alert('name')</script>", "C:\\Windows\\evil", "\"quoted\" name"] {
                let guest = try await app.guestToken(code: event["code"] as! String, name: name)
                var headers: HTTPFields = [
                    .contentType: "image/jpeg", .authorization: "Bearer \(guest)",
                    .contentDisposition: "attachment; filename=\"../../evil.sh\"",
                ]
                headers[.init("X-Photo-Source")!] = "camera"
                let uploaded = try await app.client.execute(
                    uri: "/api/v1/events/\(id)/photos", method: .post, headers: headers,
                    body: ByteBuffer(data: try await TestImages.jpeg(width: 90 + name.count, height: 60))
                ) {
                    APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
                }
                #expect(uploaded.status == .created)
                let photoID = try #require(uploaded.string("id"))
                _ = try await app.waitUntilProcessed(photoID, token: guest)
                let downloadName = try #require(uploaded.string("downloadName"))
                #expect(!downloadName.contains("/") && !downloadName.contains("\\") && !downloadName.contains("..") && !downloadName.contains("\""))
                let original = try await app.call(.get, "/api/v1/photos/\(photoID)/original", token: guest)
                let disposition = try #require(original.headers[.contentDisposition])
                #expect(!disposition.contains("..") && !disposition.contains("\r") && !disposition.contains("\n"))
                let page = try await app.page(.get, "/events/\(id)", cookie: organizer)
                #expect(!page.text.contains("<script>alert('name')"))
            }
            #expect(!app.storedFiles().contains { $0.contains("evil") || $0.contains("..") }, "\(app.storedFiles())")
            let zip = try await app.call(.get, "/api/v1/events/\(id)/archive.zip", token: organizer)
            #expect(zip.status == .ok)
            // The entries' names as unzip reads them (the photos' own bytes may hold any sequence, "../" included).
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString).zip")
            try Data(buffer: zip.body).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let names = try await runTool("/usr/bin/unzip", ["-Z1", file.path]).output.split(separator: "\n").map(String.init)
            #expect(names.count == 4 && names.allSatisfy { !$0.contains("..") && !$0.contains("/") && !$0.contains("\\") }, "\(names)")
        }
    }
}

/// zlib-compressed zeros (a decompression bomb), made by Python's zlib.
func zlibZeros(_ count: Int) async throws -> [UInt8] {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeros-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: url) }
    let script = "import zlib,sys; open(sys.argv[1],'wb').write(zlib.compress(bytes(\(count)), 9))"
    guard try await runTool("/usr/bin/env", ["python3", "-c", script, url.path]).status == 0 else { throw TestSetupError("python3 zlib failed") }
    return [UInt8](try Data(contentsOf: url))
}

/// A real PNG with one more chunk just before IEND.
func pngWithChunk(_ type: String, _ body: [UInt8]) async throws -> Data {
    let png = [UInt8](try await TestImages.image("png", width: 64, height: 48))
    let iend = png.count - 12
    return Data(png[..<iend] + pngChunk(type, body) + png[iend...])
}

func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + body
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in typed {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    return bigEndian(UInt32(body.count)) + typed + bigEndian(crc)
}

/// A real JPEG with one more marker segment right after SOI.
func jpegWithSegment(_ marker: UInt8, _ body: Data) async throws -> Data {
    let jpeg = try await TestImages.jpeg(width: 120, height: 80)
    let length = body.count + 2
    return jpeg.prefix(2) + Data([0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]) + body + jpeg.dropFirst(2)
}

/// A JPEG with an ICC profile of junk split over as many APP2 segments as it takes.
func jpegWithICC(bytes: Int) async throws -> Data {
    let chunk = 65_000
    let count = (bytes + chunk - 1) / chunk
    let junk = Data(String(repeating: "JUNKPROFILE", count: bytes / 11 + 1).utf8).prefix(bytes)
    var segments = Data()
    for index in 0..<count {
        let part = junk.dropFirst(index * chunk).prefix(chunk)
        let body = Data("ICC_PROFILE".utf8) + Data([0, UInt8(index + 1), UInt8(count)]) + part
        let length = body.count + 2
        segments += Data([0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]) + body
    }
    let jpeg = try await TestImages.jpeg(width: 120, height: 80)
    return jpeg.prefix(2) + segments + jpeg.dropFirst(2)
}

extension HostileRequestTests {
    @Test("Library file names lose bidirectional overrides, invisible marks and line separators")
    func libraryFileNames() async throws {
        try await TestApp.run(.sqlite) { app in
            let owner = try await app.userToken()
            for (index, name) in ["holiday\u{202E}gpj.exe", "a\u{200B}b\u{2066}c\u{2069}.jpg", "line\u{2028}break.jpg"].enumerated() {
                var headers: HTTPFields = [.contentType: "image/jpeg", .authorization: "Bearer \(owner)"]
                headers[.init("X-File-Name")!] = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let uploaded = try await app.client.execute(
                    uri: "/api/v1/library/assets", method: .post, headers: headers,
                    body: ByteBuffer(data: try await TestImages.jpeg(width: 90 + index, height: 60))
                ) { APIResponse(status: $0.status, headers: $0.headers, body: $0.body) }
                #expect(uploaded.status == .created, "\(uploaded.text)")
                let stored = try #require(uploaded.string("fileName"))
                #expect(stored.unicodeScalars.allSatisfy { $0.properties.generalCategory != .format && $0.value != 0x2028 }, "\(stored)")
                #expect(["holidaygpj.exe", "abc.jpg", "linebreak.jpg"][index] == stored)
            }
        }
    }
}
