import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `/friends` (the capsule seed's story 10): ask someone by username or e-mail address, answer requests, see and
/// remove friends. Plain forms through `FriendService`, like the API.
package struct FriendPages {
    package let friends: FriendService

    package init(friends: FriendService) {
        self.friends = friends
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/friends", use: page)
        router.post("/friends", use: request)
        router.post("/friends/:id/accept", use: accept)
        router.post("/friends/:id/remove", use: remove)
    }

    private static let toLogin = WebRequest.redirect("/login?next=/friends")

    @Sendable package func page(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        let web = WebRequest(request, context: context)
        let notice = ["asked": "friends_asked", "emailed": "friends_asked_email", "accepted": "friends_accepted", "removed": "friends_removed"][
            request.uri.queryParameters.get("done") ?? ""]
        return try await render(web, user: user, notice: notice.map { web.t($0) })
    }

    @Sendable package func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        let form = try await WebForm.read(request)
        let who = (form["who"] ?? "").trimmingCharacters(in: .whitespaces)
        let done = { (result: String) in result == "accepted" ? "accepted" : who.contains("@") ? "emailed" : "asked" }
        return try await act(request, context, user, done: done) {
            try await friends.request(who.contains("@") ? FriendRequest(email: who) : FriendRequest(username: who), from: user).status
        }
    }

    @Sendable package func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        let id = try context.parameters.require("id")
        return try await act(request, context, user, done: { _ in "accepted" }) { try await friends.accept(id, for: user).id }
    }

    @Sendable package func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard case .user(let user, _) = context.identity else { return Self.toLogin }
        let id = try context.parameters.require("id")
        return try await act(request, context, user, done: { _ in "removed" }) {
            try await friends.remove(id, for: user)
            return ""
        }
    }

    /// Does it, then back to the page with a notice; a refusal is shown on the page in the reader's words.
    private func act(
        _ request: Request, _ context: AppRequestContext, _ user: User, done: (String) -> String, _ body: () async throws -> String
    ) async throws -> Response {
        do {
            return WebRequest.redirect("/friends?done=\(done(try await body()))")
        } catch let problem as Problem {
            let web = WebRequest(request, context: context)
            return try await render(web, user: user, error: web.problemMessage(problem), status: problem.status)
        }
    }

    private func render(
        _ web: WebRequest, user: User, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let list = try await friends.list(for: user)
        let person = { (friend: FriendJSON) in
            FriendsView.Person(
                id: friend.id, name: friend.name, username: friend.username, avatarURL: friend.avatarURL, initial: String(friend.name.prefix(1)),
                since: web.time(friend.since))
        }
        return web.page(
            "friends", title: web.t("friends_title"),
            model: FriendsView(
                notice: notice, error: error, myUsername: user.username, friends: list.friends.map(person), incoming: list.incoming.map(person),
                outgoing: list.outgoing.map(person), none: list.friends.isEmpty && list.incoming.isEmpty && list.outgoing.isEmpty),
            status: status)
    }
}

package struct FriendsView: Sendable {
    package struct Person: Sendable {
        package let id: String
        package let name: String
        package let username: String?
        package let avatarURL: String?
        package let initial: String
        package let since: TimeText
    }

    package let notice: String?
    package let error: String?
    /// Mine, to tell friends (nil: the page suggests choosing one). Not `username`: a friend without one would show
    /// mine, as mustache looks up a missing key in the enclosing context.
    package let myUsername: String?
    package let friends: [Person]
    package let incoming: [Person]
    package let outgoing: [Person]
    package let none: Bool
}
