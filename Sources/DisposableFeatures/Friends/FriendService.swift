import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Friends (the capsule seed's stories 10–14, 46): ask an account by its username or e-mail address, accept or
/// decline, take back, remove. One row per pair whoever asked; each side is told (friend-request, friend-accepted).
/// A friend sees my name, username and picture, never my e-mail address.
package struct FriendService: Sendable {
    let rows: FriendshipRepository
    package let limiter: RateLimiter
    package let bell: StreamWaker
    package let clock: any AppClock

    init(rows: FriendshipRepository, limiter: RateLimiter, bell: StreamWaker, clock: any AppClock) {
        self.rows = rows
        self.limiter = limiter
        self.bell = bell
        self.clock = clock
    }

    /// My friends, the requests waiting for my answer and mine waiting for theirs; by name.
    package func list(for user: User) async throws -> FriendList {
        let rows = try await rows.all(of: user.id)
        let byName = { (a: FriendJSON, b: FriendJSON) in (a.name.lowercased(), a.id) < (b.name.lowercased(), b.id) }
        return FriendList(
            friends: rows.compactMap { row in row.accepted.map { at in Self.with(row.friend, since: at) } }.sorted(by: byName),
            incoming: rows.filter { $0.accepted == nil && !$0.askedByMe }.map(\.friend).sorted(by: byName),
            outgoing: rows.filter { $0.accepted == nil && $0.askedByMe }.map(\.friend).sorted(by: byName))
    }

    /// Asks the account with this username or e-mail address; if it had asked me already, we are friends now.
    /// By e-mail address the answer names nobody and is the same whether or not an account has it:
    /// a username is public, an address is not. Such a request is not in my outgoing list until it is accepted.
    package func request(_ input: FriendRequest, from user: User) async throws -> FriendRequestResult {
        let target: FriendshipRepository.Target
        switch (input.username, input.email) {
        case (let username?, nil):
            guard let name = try Username.validate(username) else { throw Self.sayWho }
            target = .username(name)
        case (nil, let email?):
            target = .email(try Credentials.email(email))
        default:
            throw Self.sayWho
        }
        _ = try await limiter.take([.target(user.id)])
        let now = clock.now
        let byEmail = if case .email = target { true } else { false }
        let unnamed = FriendRequestResult(status: "pending", friend: nil)
        let result: FriendRequestResult
        switch try await rows.request(target, from: user, now: now) {
        case .noAccount:
            guard byEmail else { throw Problem.notFound("No account here has this username.") }
            result = unnamed
        case .ownAccount:
            throw Problem.invalidField("username", "You cannot be your own friend.")
        case .asked(let other, _):
            result = byEmail ? unnamed : FriendRequestResult(status: "pending", friend: other)
        case .friends(let other, let justNow):
            // Already friends, or they asked me: I know them already, so naming them reveals nothing.
            result = FriendRequestResult(status: "accepted", friend: justNow ? Self.with(other, since: now.millisecondsSince1970) : other)
        }
        await bell.changed(NotificationService.anyone)
        return result
    }

    /// Says yes to `otherID`'s request.
    package func accept(_ otherID: String, for user: User) async throws -> FriendJSON {
        let accepted = try await rows.accept(otherID, for: user, now: clock.now)
        guard accepted, let friend = try await list(for: user).friends.first(where: { $0.id == otherID }) else {
            throw Problem.notFound("There is no friend request from this account.")
        }
        await bell.changed(NotificationService.anyone)
        return friend
    }

    /// Declines their request, takes mine back, or ends a friendship — whichever there is.
    package func remove(_ otherID: String, for user: User) async throws {
        guard try await rows.remove(otherID, for: user.id) else { throw Problem.notFound("There is no friend or request with this account.") }
    }

    private static let sayWho = Problem.invalidField("username", "Say who to ask: a username, or an e-mail address.")

    private static func with(_ friend: FriendJSON, since: Int64) -> FriendJSON {
        var friend = friend
        friend.since = Date(millisecondsSince1970: since)
        return friend
    }
}
