import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Guest tokens a browser keeps in an HttpOnly cookie, newest first: the events it joined (EV-4,
/// `disposable_joined`) — the session cookie holds one identity at a time; opening an event switches it to that
/// event's guest — and, apart, the events it left (`disposable_left`): the pages no longer show
/// those, and joining one again under the same name comes back as the same guest, with the shots they had left.
package struct JoinedEvents: Sendable {
    package static let cookieName = "disposable_joined"
    package static let leftCookieName = "disposable_left"
    package static let limit = 30
    package let name: String
    package let tokens: [String]

    /// The events this browser joined.
    package init(_ request: Request) { self.init(request, cookie: Self.cookieName) }

    /// The events this browser left.
    package static func left(_ request: Request) -> JoinedEvents { JoinedEvents(request, cookie: leftCookieName) }

    private init(_ request: Request, cookie: String) {
        name = cookie
        tokens = (request.cookies[cookie]?.value ?? "").split(separator: ".").map(String.init).filter { !$0.isEmpty }
    }

    package init(tokens: [String], cookie: String = cookieName) { (name, self.tokens) = (cookie, tokens) }

    package func adding(_ token: String) -> JoinedEvents {
        JoinedEvents(tokens: Array(([token] + tokens.filter { $0 != token }).prefix(Self.limit)), cookie: name)
    }

    package func removing(_ token: String) -> JoinedEvents { JoinedEvents(tokens: tokens.filter { $0 != token }, cookie: name) }

    package func cookie(secure: Bool) -> Cookie {
        Cookie(
            name: name, value: tokens.joined(separator: "."), maxAge: tokens.isEmpty ? 0 : 60 * 60 * 24 * 400,
            path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
