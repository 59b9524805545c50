import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird

/// HTTP Basic (RFC 7617) for WebDAV: the account's e-mail and one of its app passwords, on every request.
package enum DAVBasicAuth {
    package static let challenge = #"Basic realm="Disposable", charset="UTF-8""#

    /// The e-mail and password of an `Authorization: Basic …` header; nil when there is none or it is not Basic.
    package static func credentials(_ header: String?) -> (email: String, secret: String)? {
        guard let header, header.count <= 1024 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// A 401 that asks for credentials again.
    package static func refusal(_ problem: Problem) -> Problem {
        var problem = problem
        problem.headers[.wwwAuthenticate] = challenge
        return problem
    }

    package static let missing = refusal(
        Problem(
            .unauthorized, "app-password-required", title: "App password required",
            detail: "Sign in with your account's email address and an app password made in My account → Devices."))
}
