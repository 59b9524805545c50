import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import JWTKit
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// Hostile ID tokens: a provider run by the test (`Tests/tools/hostile_openid.py`) answers the code with
/// whatever token the test made — signed by another key, for another client, expired, with another nonce or issuer,
/// unsigned — and the server must sign no one in. The same round with a right token signs in, so each refusal is the
/// server's check and not a broken harness.
@Suite("Sign in with OpenID Connect: hostile ID tokens")
struct OpenIDTokenTests {
    /// What the test's provider puts in its tokens.
    struct Claims: JWTPayload {
        var iss: String
        var sub = "mallory-1"
        var aud: [String] = ["disposable-tests"]
        var exp: Int
        var nonce: String?
        var email = "mallory@example.org"
        var email_verified = true

        func verify(using _: some JWTAlgorithm) throws {}
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A P-256 key as a JWK set entry.
    static func jwk(_ key: P256.Signing.PrivateKey, kid: String) -> [String: String] {
        let point = key.publicKey.x963Representation.dropFirst()
        return [
            "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
            "x": base64URL(Data(point.prefix(32))), "y": base64URL(Data(point.suffix(32))),
        ]
    }

    /// A key as a JWK set entry, without the `kid` a provider may leave out.
    static func unnamedJWK(_ key: P256.Signing.PrivateKey) -> [String: String] {
        jwk(key, kid: "").filter { $0.key != "kid" }
    }

    /// The hostile provider serving `keys` (rewritten in the file, they are what it serves next), and a test app
    /// signing in with it; `body` gets the app, the issuer and the file.
    static func withProvider(
        keys: [[String: String]], _ body: @escaping @Sendable (TestApp, String, URL) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-oidc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let jwks = folder.appendingPathComponent("jwks.json")
        try JSONSerialization.data(withJSONObject: ["keys": keys]).write(to: jwks)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/hostile_openid.py").path
        let log = folder.appendingPathComponent("out.log").path
        let process = try ChildProcess("/usr/bin/env", ["python3", script, jwks.path], log: log)
        try await withCleanup {
            var printed = ""
            let deadline = ContinuousClock.now + .seconds(20)
            while printed.isEmpty {
                guard ContinuousClock.now < deadline, process.isRunning else {
                    throw TestSetupError("the provider did not start: \(process.logTail)")
                }
                try await Task.sleep(for: .milliseconds(100))
                printed = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? ""
            }
            let issuer = printed
            let settings = try OpenIDSettings(issuer: issuer, clientID: "disposable-tests", clientSecret: "s", buttonLabel: nil, only: false)
            try await TestApp.run(.sqlite, configure: { $0.openID = settings }) { app in try await body(app, issuer, jwks) }
        } cleanup: {
            process.signal(SIGKILL)
            await process.exited()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// One sign-in: the button, the provider answering `token(nonce)` for the code, the callback; the answer and
    /// whether a session came of it.
    static func round(_ app: TestApp, _ issuer: String, _ token: (String) async throws -> String) async throws -> (APIResponse, Bool) {
        var browser = OpenIDTests.Browser()
        let authorization = try #require(URLComponents(string: try await browser.start(app)))
        let nonce = try #require(authorization.queryItems?.first { $0.name == "nonce" }?.value)
        var put = HTTPClientRequest(url: issuer + "/next-token")
        put.method = .PUT
        put.headers.add(name: "Connection", value: "close")
        put.body = .bytes(ByteBuffer(string: try await token(nonce)))
        #expect(try await TestOpenIDProvider.client.execute(put, timeout: .seconds(10)).status.code == 204)
        let answer = try await browser.finish(app, "/login/openid/callback?code=any&state=\(browser.state!)")
        return (answer, browser.session != nil)
    }

    @Test("A token signed by another key, for another client, expired, with another nonce or issuer, or unsigned signs no one in")
    func hostileTokens() async throws {
        let providerKey = P256.Signing.PrivateKey()
        let otherKey = P256.Signing.PrivateKey()
        try await Self.withProvider(keys: [Self.jwk(providerKey, kid: "k1")]) { app, issuer, _ in
            let signer = JWTKeyCollection()
            await signer.add(ecdsa: try ES256PrivateKey(backing: providerKey), kid: "k1")
            let impostor = JWTKeyCollection()
            await impostor.add(ecdsa: try ES256PrivateKey(backing: otherKey), kid: "k1")
            let now = Int(app.clock.now.timeIntervalSince1970)

            func round(_ token: (String) async throws -> String) async throws -> (APIResponse, Bool) {
                try await Self.round(app, issuer, token)
            }
            func claims(_ nonce: String, _ change: (inout Claims) -> Void = { _ in }) -> Claims {
                var claims = Claims(iss: issuer, exp: now + 600, nonce: nonce)
                change(&claims)
                return claims
            }
            let refusal = "could not be trusted"

            // hostile, each alone
            let cases: [(String, (String) async throws -> String)] = [
                ("another key", { try await impostor.sign(claims($0), kid: "k1") }),
                ("another client", { try await signer.sign(claims($0) { $0.aud = ["someone-else"] }, kid: "k1") }),
                (
                    "two clients, not issued to us",
                    { try await signer.sign(claims($0) { $0.aud = ["disposable-tests", "someone-else"] }, kid: "k1") }
                ),
                ("expired", { try await signer.sign(claims($0) { $0.exp = now - 3600 }, kid: "k1") }),
                ("another nonce", { try await signer.sign(claims($0) { $0.nonce = "not-" + $0.nonce! }, kid: "k1") }),
                ("no nonce", { try await signer.sign(claims($0) { $0.nonce = nil }, kid: "k1") }),
                ("another issuer", { try await signer.sign(claims($0) { $0.iss = "https://accounts.google.com" }, kid: "k1") }),
                (
                    "unsigned (alg none)",
                    { nonce in
                        let header = Self.base64URL(Data(#"{"alg":"none","kid":"k1","typ":"JWT"}"#.utf8))
                        let body = Self.base64URL(try JSONEncoder().encode(claims(nonce)))
                        return "\(header).\(body)."
                    }
                ),
                ("garbage", { _ in "not.a.token" }),
            ]
            for (name, token) in cases {
                let (answer, signedIn) = try await round(token)
                #expect(answer.status == .badRequest && answer.text.contains(refusal) && !signedIn, "\(name): \(answer.status)")
            }
            #expect(!(try await app.services.accounts.accountExists(email: "mallory@example.org")))

            // the control: the right token, the same round, signs in
            let (good, signedIn) = try await round { try await signer.sign(claims($0), kid: "k1") }
            #expect(good.status == .seeOther && signedIn, "\(good.text.prefix(300))")
        }
    }

    @Test("A provider whose keys have no ids signs people in, and again after it rotated its key")
    func keysWithoutIDs() async throws {
        let first = P256.Signing.PrivateKey()
        let second = P256.Signing.PrivateKey()
        try await Self.withProvider(keys: [Self.unnamedJWK(first)]) { app, issuer, jwks in
            func signed(by key: P256.Signing.PrivateKey) async throws -> (String) async throws -> String {
                let signer = JWTKeyCollection()
                await signer.add(ecdsa: try ES256PrivateKey(backing: key))
                let now = Int(app.clock.now.timeIntervalSince1970)
                return { nonce in try await signer.sign(Claims(iss: issuer, exp: now + 600, nonce: nonce)) }
            }
            let (before, signedIn) = try await Self.round(app, issuer, try await signed(by: first))
            #expect(before.status == .seeOther && signedIn, "no key id: \(before.status) \(before.text.prefix(300))")

            // The provider rotates: the new key alone, still without an id; the server's copy is an hour old.
            try JSONSerialization.data(withJSONObject: ["keys": [Self.unnamedJWK(second)]]).write(to: jwks)
            app.clock.advance(by: 3600 + 1)
            let (after, again) = try await Self.round(app, issuer, try await signed(by: second))
            #expect(after.status == .seeOther && again, "after the rotation: \(after.status) \(after.text.prefix(300))")

            // Both keys published, neither named: a token from the one the server's copy lacks fetches the set again
            // (a minute after the last fetch) and is checked against each key.
            try JSONSerialization.data(withJSONObject: ["keys": [Self.unnamedJWK(second), Self.unnamedJWK(first)]]).write(to: jwks)
            app.clock.advance(by: 61)
            let (both, third) = try await Self.round(app, issuer, try await signed(by: first))
            #expect(both.status == .seeOther && third, "either key: \(both.status) \(both.text.prefix(300))")

            // and a key that is not the provider's still signs no one in
            let (forged, forgedIn) = try await Self.round(app, issuer, try await signed(by: P256.Signing.PrivateKey()))
            #expect(forged.status == .badRequest && !forgedIn)
        }
    }
}
