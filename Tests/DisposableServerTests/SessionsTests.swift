import DisposableAPI
import Foundation
import Hummingbird
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A user sees their sessions (device, last seen) and signs the others out.
@Suite("My sessions")
struct SessionsTests {
    @Test("Sessions named by their device; one signed out by id, then all the others; never someone else's", arguments: TestEngine.allCases)
    func sessions(engine: TestEngine) async throws {
        try await TestApp.run(engine) { app in
            let laptop = try await app.userToken(email: "dana@example.com", password: "dana password")
            func signIn(_ agent: String) async throws -> String {
                try #require(
                    try await app.call(
                        .post, "/api/v1/sessions", body: LoginRequest(email: "dana@example.com", password: "dana password"),
                        headers: [.userAgent: agent]
                    ).string("token"))
            }
            let phone = try await signIn(
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36")
            let iphone = try await signIn(
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
            )
            let script = try await signIn("curl/8.5.0")

            let list = try #require(try await app.call(.get, "/api/v1/me/sessions", token: phone)["items"] as? [[String: Any]])
            #expect(list.count == 4)
            let devices = Set(list.compactMap { $0["device"] as? String })
            #expect(devices.isSuperset(of: ["Chrome on Android", "Safari on iPhone", "curl"]), "\(devices)")
            #expect(list.filter { $0["current"] as? Bool == true }.map { $0["device"] as? String } == ["Chrome on Android"])

            // MUT: sign out the iPhone by its id, then everything but the phone
            let iphoneID = try #require(list.first { $0["device"] as? String == "Safari on iPhone" }?["id"] as? String)
            #expect(try await app.call(.delete, "/api/v1/me/sessions/\(iphoneID)", token: phone).status == .noContent)
            try await app.call(.get, "/api/v1/me", token: iphone).expectProblem(.unauthorized)
            try await app.call(.delete, "/api/v1/me/sessions/\(iphoneID)", token: phone).expectProblem(.notFound)
            // Someone else cannot end mine, even knowing its id.
            let scriptID = try #require(list.first { $0["device"] as? String == "curl" }?["id"] as? String)
            let stranger = try await app.userToken()
            try await app.call(.delete, "/api/v1/me/sessions/\(scriptID)", token: stranger).expectProblem(.notFound)
            #expect(try await app.call(.get, "/api/v1/me", token: script).status == .ok)
            #expect(try await app.call(.delete, "/api/v1/me/sessions", token: phone).status == .noContent)
            for gone in [laptop, script] { try await app.call(.get, "/api/v1/me", token: gone).expectProblem(.unauthorized) }
            let left = try #require(try await app.call(.get, "/api/v1/me/sessions", token: phone)["items"] as? [[String: Any]])
            #expect(left.count == 1 && left.first?["current"] as? Bool == true)
            #expect(try await app.call(.get, "/api/v1/me/sessions", token: stranger).status == .ok)

            // The page shows the same, in French too — the device's name in French words.
            let page = try await app.page(.get, "/account", cookie: phone, headers: [.acceptLanguage: "fr"])
            #expect(page.text.contains("Chrome sur Android") && page.text.contains("cet appareil"))
            #expect(try await app.page(.get, "/account", cookie: phone).text.contains("Chrome on Android"))
        }
    }

    @Test("Device names from common User-Agents")
    func deviceNames() {
        #expect(
            DeviceName.from(
                userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0")
                == "Edge on Windows")
        #expect(DeviceName.from(userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:132.0) Gecko/20100101 Firefox/132.0") == "Firefox on Mac")
        #expect(DeviceName.from(userAgent: "python-requests/2.32") == "python-requests")
        #expect(DeviceName.from(userAgent: "<script>/1") == "script")
        #expect(DeviceName.from(userAgent: nil) == nil && DeviceName.from(userAgent: "") == nil)
    }
}
