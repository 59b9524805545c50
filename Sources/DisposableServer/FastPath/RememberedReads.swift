import DisposableCore
import DisposablePlatform
import Hummingbird

/// Reads answered from memory for a second (`RecentReads`): who holds a token, for GET and HEAD. Every other
/// request forgets everything before and after it runs (`ForgetRecentReadsMiddleware`), and so does every news
/// the `ChangeHub` hears; so on one instance a sign-out, a guest leaving or a shot taken is seen by the very
/// next request.
package struct RememberedIdentities: Sendable {
    package let accounts: AccountService
    package let recent: RecentReads

    package func identity(for token: String, isRead: Bool) async throws -> Identity? {
        guard isRead else { return try await accounts.identity(for: token) }
        let accounts = accounts
        return try await recent.identities.answer(for: token) { try await accounts.identity(for: token) }
    }
}

/// Forgets remembered reads around every write: all of them, or after an upload what it changes (`RecentReads`).
package struct ForgetRecentReadsMiddleware<Context: RequestContext>: RouterMiddleware {
    package let recent: RecentReads
    /// Tells the other instances, after a write that is not an upload, to forget theirs.
    package let tellOthers: @Sendable () -> Void

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .get || request.method == .head { return try await next(request, context) }
        let upload = Self.isUpload(request)
        let token = upload ? AuthenticationMiddleware.sentToken(request) : nil
        let forget = { [recent] in upload ? recent.forgetAfterUpload(token: token) : recent.forgetAll() }
        forget()
        // After the write too: a read that looked something up while the write ran must not keep it.
        defer {
            forget()
            if !upload { tellOthers() }
        }
        return try await next(request, context)
    }

    /// A shot (`POST /api/v1/events/{id}/photos`) or a resumable upload's request (`/api/v1/uploads…`, the library's
    /// too).
    package static func isUpload(_ request: Request) -> Bool {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].isEmpty, parts[1] == "api", parts[2] == "v1" else { return false }
        if parts[3] == "uploads" { return true }
        return request.method == .post && parts.count == 6 && parts[3] == "events" && parts[5] == "photos"
    }
}

/// Event rows for reads, answered from memory for a second (`RecentReads`): the gallery list reads the row for
/// its change position with every request. Forgotten like identities.
package struct RememberedEvents: Sendable {
    package let events: EventRepository
    package let recent: RecentReads

    package func event(_ id: String) async throws -> Event? {
        let events = events
        return try await recent.events.answer(for: id) { try await events.find(id: id) }
    }
}
