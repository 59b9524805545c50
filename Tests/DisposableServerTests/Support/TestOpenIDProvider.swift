import AsyncHTTPClient
import Foundation
import NIOCore

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// A real OpenID Connect provider (oidc-provider-mock from PyPI, which `scripts/install-deps test` installs) started on
/// a free port: discovery, JWKS, a login form where a subject is typed, and `PUT /users/{sub}` to set a person's
/// claims. It requires a nonce, as a careful provider does. Stopped by `stop()`.
struct TestOpenIDProvider {
    let issuer: String
    let process: ChildProcess
    let folder: URL

    /// A port found free may be taken by another suite's process before the provider binds it (it then exits with
    /// 3): it is started again on another, at most three times.
    static func start() async throws -> TestOpenIDProvider {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for attempt in 1...3 {
            let port = try freePort()
            let process = try ChildProcess(
                "/usr/bin/env", ["python3", "-m", "oidc_provider_mock", "--port", String(port), "--require-nonce"],
                log: folder.appendingPathComponent("output-\(attempt).log").path)
            let issuer = "http://127.0.0.1:\(port)"
            do {
                guard try await waitForHTTP(issuer + "/.well-known/openid-configuration", server: process, timeout: 60) == 200 else {
                    throw TestSetupError("oidc-provider-mock did not start: \(process.logTail)")
                }
            } catch  where attempt < 3 && process.ended != nil && process.logTail.contains("address already in use") {
                continue
            }
            return TestOpenIDProvider(issuer: issuer, process: process, folder: folder)
        }
        throw TestSetupError("unreachable: the third attempt returns or throws")
    }

    /// Sets the claims the provider gives for `sub` (e-mail, whether it verified it, name).
    func setUser(_ sub: String, _ claims: [String: Any]) async throws {
        var request = HTTPClientRequest(url: "\(issuer)/users/\(sub)")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Connection", value: "close")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: claims)))
        let response = try await Self.client.execute(request, timeout: .seconds(20))
        guard response.status.code == 204 else { throw TestSetupError("PUT /users/\(sub): \(response.status)") }
    }

    /// Signs in as `sub` on the provider's form at `authorization` (the URL the server sent the browser to), and
    /// returns where the provider sends the browser back: the callback's path and query.
    func authorize(_ authorization: String, as sub: String) async throws -> String {
        var request = HTTPClientRequest(url: authorization)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Connection", value: "close")
        request.body = .bytes(ByteBuffer(string: "sub=\(sub)"))
        let response = try await Self.client.execute(request, timeout: .seconds(20))
        guard response.status.code == 302, let location = response.headers.first(name: "Location"), let url = URL(string: location) else {
            throw TestSetupError("the provider's form answered \(response.status)")
        }
        return url.path + "?" + (url.query ?? "")
    }

    func stop() async {
        process.signal(SIGKILL)
        await process.exited()
        try? FileManager.default.removeItem(at: folder)
    }

    /// No redirects followed: the test reads each one. Each request closes its connection: providers of other tests
    /// are killed and their ports reused, so a kept connection could belong to a dead one.
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
}
