import Foundation
import Hummingbird
import Testing

@testable import DisposableServer

/// SOC-5: a display name and a picture, checked and re-encoded like photos; gone with the account.
@Suite("Profiles (SOC-5)")
struct ProfileTests {
    @Test(
        "A picture is re-encoded small without its metadata, seen by the event's guests, replaced, removed, and erased with the account",
        arguments: TestEngine.allCases)
    func avatar(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let olivia = try await app.userToken(email: "olivia@example.com")
            let guest = try await app.guestToken(code: try await app.createEvent(token: olivia)["code"] as! String)
            let picture = try await TestImages.jpeg(width: 1200, height: 900, exif: ["-GPSLatitude=48.85", "-GPSLatitudeRef=N", "-Artist=Olivia"])
            var headers: HTTPFields = [.contentType: "image/jpeg", .authorization: "Bearer \(olivia)"]
            let set = try await app.client.execute(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: ByteBuffer(data: picture)) {
                APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
            }
            #expect(set.status == .ok, "\(set.text)")
            let url = try #require(set.string("avatarURL"))
            #expect(url.hasSuffix("avatar.jpg?v=1"))

            let served = try await app.call(.get, url, token: guest)
            #expect(served.status == .ok && served.headers[.contentType] == "image/jpeg")
            let bytes = Data(buffer: served.body)
            #expect(TestImages.jpegSize(bytes).map { max($0.width, $0.height) } == 400)
            #expect(bytes.range(of: Data("Exif".utf8)) == nil && bytes.range(of: Data("Olivia".utf8)) == nil, "no metadata of the sent file")
            try await app.call(.get, url).expectProblem(.unauthorized)

            // The name, and hostile input.
            let renamed = try await app.call(.patch, "/api/v1/me", json: ["name": "Olivia M."], token: olivia)
            #expect(renamed["name"] as? String == "Olivia M." && renamed["avatarURL"] as? String == url)
            #expect(((try await app.call(.get, "/api/v1/me", token: olivia))["user"] as? [String: Any])?["name"] as? String == "Olivia M.")
            try await app.call(.patch, "/api/v1/me", json: ["name": "a\u{202E}b"], token: olivia).expectProblem(.unprocessableContent)
            try await app.call(.patch, "/api/v1/me", json: ["email": "x@example.com"], token: olivia).expectProblem(.badRequest)
            for (body, status) in [
                (Data("not a picture".utf8), HTTPResponse.Status.unsupportedMediaType), (picture.prefix(300), .unprocessableContent),
            ] {
                headers[.contentType] = "image/jpeg"
                let refused = try await app.client.execute(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: ByteBuffer(data: body)) {
                    APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
                }
                refused.expectProblem(status)
            }
            #expect(try await app.call(.get, url, token: guest).status == .ok, "a refused picture leaves the old one")

            // The account page shows it; removing it, then erasing the account, leaves no file.
            #expect(try await app.page(.get, "/account", cookie: olivia).text.contains(url))
            #expect(try await app.call(.delete, "/api/v1/me/avatar", token: olivia).status == .noContent)
            try await app.call(.get, url, token: guest).expectProblem(.notFound)
            _ = try await app.client.execute(uri: "/api/v1/me/avatar", method: .put, headers: headers, body: ByteBuffer(data: picture)) { _ in }
            #expect(app.storedFiles().contains { $0.hasPrefix("avatars/") })
            #expect(try await app.call(.delete, "/api/v1/me", json: ["confirmEmail": "olivia@example.com"], token: olivia).status == .noContent)
            #expect(!app.storedFiles().contains { $0.hasPrefix("avatars/") })
        }
    }
}
