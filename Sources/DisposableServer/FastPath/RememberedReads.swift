import Hummingbird

/// Reads answered from memory for a second (`RecentReads`): who holds a token, for GET and HEAD. Every other
/// request forgets everything before and after it runs (`ForgetRecentReadsMiddleware`), and so does every news
/// the `ChangeHub` hears; so on one instance a sign-out, a guest leaving or a shot taken is seen by the very
/// next request.
struct RememberedIdentities: Sendable {
    let accounts: AccountService
    let recent: RecentReads

    func identity(for token: String, isRead: Bool) async throws -> Identity? {
        guard isRead else { return try await accounts.identity(for: token) }
        let accounts = accounts
        return try await recent.identities.answer(for: token) { try await accounts.identity(for: token) }
    }
}

/// Forgets remembered reads around every write.
struct ForgetRecentReadsMiddleware<Context: RequestContext>: RouterMiddleware {
    let recent: RecentReads

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isRead = request.method == .get || request.method == .head
        if !isRead { recent.forgetAll() }
        // After the write too: a read that looked something up while the write ran must not keep it.
        defer { if !isRead { recent.forgetAll() } }
        return try await next(request, context)
    }
}

/// Event rows for reads, answered from memory for a second (`RecentReads`): the gallery list reads the row for
/// its change position with every request. Forgotten like identities.
struct RememberedEvents: Sendable {
    let events: EventRepository
    let recent: RecentReads

    func event(_ id: String) async throws -> Event? {
        let events = events
        return try await recent.events.answer(for: id) { try await events.find(id: id) }
    }
}
