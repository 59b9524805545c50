import Foundation
import Hummingbird

/// The guest tokens of every event this browser joined (EV-4), in one HttpOnly cookie, newest first.
/// The session cookie holds one identity at a time; opening an event switches it to that event's guest.
struct JoinedEvents: Sendable {
    static let cookieName = "disposable_joined"
    static let limit = 30
    let tokens: [String]

    init(_ request: Request) {
        tokens = (request.cookies[Self.cookieName]?.value ?? "").split(separator: ".").map(String.init).filter { !$0.isEmpty }
    }

    init(tokens: [String]) { self.tokens = tokens }

    func adding(_ token: String) -> JoinedEvents {
        JoinedEvents(tokens: Array(([token] + tokens.filter { $0 != token }).prefix(Self.limit)))
    }

    func removing(_ token: String) -> JoinedEvents { JoinedEvents(tokens: tokens.filter { $0 != token }) }

    func cookie(secure: Bool) -> Cookie {
        Cookie(
            name: Self.cookieName, value: tokens.joined(separator: "."), maxAge: tokens.isEmpty ? 0 : 60 * 60 * 24 * 400,
            path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}

/// The guest tokens of events this browser left (issue 39, item 2), in their own HttpOnly cookie: the pages no
/// longer show those events, and joining one again under the same name comes back as the same guest, with the
/// shots they had left, instead of starting a fresh roll.
struct LeftEvents: Sendable {
    static let cookieName = "disposable_left"
    let tokens: [String]

    init(_ request: Request) {
        tokens = (request.cookies[Self.cookieName]?.value ?? "").split(separator: ".").map(String.init).filter { !$0.isEmpty }
    }

    init(tokens: [String]) { self.tokens = tokens }

    func adding(_ token: String) -> LeftEvents {
        LeftEvents(tokens: Array(([token] + tokens.filter { $0 != token }).prefix(JoinedEvents.limit)))
    }

    func removing(_ token: String) -> LeftEvents { LeftEvents(tokens: tokens.filter { $0 != token }) }

    func cookie(secure: Bool) -> Cookie {
        Cookie(
            name: Self.cookieName, value: tokens.joined(separator: "."), maxAge: tokens.isEmpty ? 0 : 60 * 60 * 24 * 400,
            path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
