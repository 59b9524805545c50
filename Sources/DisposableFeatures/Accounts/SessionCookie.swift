import DisposableCore
import DisposablePlatform
import Hummingbird

/// The web app's session cookie: the same token as the bearer one, HttpOnly, SameSite=Lax, Secure on https.
package enum SessionCookie {
    package static let name = "disposable_session"

    /// The cookie holding `token`; an empty token removes it.
    package static func make(_ token: String, secure: Bool) -> Cookie {
        Cookie(
            name: name, value: token, maxAge: token.isEmpty ? 0 : 60 * 60 * 24 * 30, path: "/",
            secure: secure, httpOnly: true, sameSite: .lax)
    }
}
