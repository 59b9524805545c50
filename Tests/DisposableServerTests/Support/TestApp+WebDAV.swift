import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

extension TestApp {
    /// A WebDAV request signed in with HTTP Basic, as phones' backup apps and file managers send it.
    func dav(
        _ method: String, _ path: String, email: String?, password: String?, headers extra: HTTPFields = [:], body: Data? = nil
    ) async throws -> APIResponse {
        var headers = extra
        if let email, let password {
            headers[.authorization] = "Basic " + Data("\(email):\(password)".utf8).base64EncodedString()
        }
        return try await send(path, method: HTTPRequest.Method(method)!, headers: headers, body: body.map { ByteBuffer(data: $0) })
    }

    /// A new account and its WebDAV client, signed in with an app password made for it.
    func davAccount(email: String) async throws -> (token: String, dav: DAVSession) {
        let token = try await userToken(email: email)
        return (token, DAVSession(app: self, email: email, password: try await appPassword(token: token)))
    }

    /// Makes an app password for the account of `token`; returns it.
    func appPassword(token: String, name: String = "Ana's phone", password: String = "correct horse") async throws -> String {
        let made = try await call(.post, "/api/v1/me/app-passwords", json: ["name": name, "currentPassword": password], token: token)
        return try #require(made.string("password"), "\(made.text)")
    }
}

/// One account's WebDAV client: `dav("PUT", path, body: …)`.
struct DAVSession {
    let app: TestApp
    let email: String
    let password: String

    func callAsFunction(_ method: String, _ path: String, headers: HTTPFields = [:], body: Data? = nil) async throws -> APIResponse {
        try await app.dav(method, path, email: email, password: password, headers: headers, body: body)
    }

    func callAsFunction(_ method: String, _ path: String, headers: HTTPFields = [:], body: String) async throws -> APIResponse {
        try await self(method, path, headers: headers, body: Data(body.utf8))
    }
}

extension APIResponse {
    /// The `href`s of a multistatus answer, in order, as addresses (XML's escapes read).
    var hrefs: [String] {
        text.components(separatedBy: "<D:href>").dropFirst().compactMap { $0.components(separatedBy: "</D:href>").first }
            .map {
                $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(
                    of: "&amp;", with: "&")
            }
    }
}
