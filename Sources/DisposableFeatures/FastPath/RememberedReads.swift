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

    package init(accounts: AccountService, recent: RecentReads) {
        self.accounts = accounts
        self.recent = recent
    }

    package func identity(for token: String, isRead: Bool) async throws -> Identity? {
        guard isRead else { return try await accounts.identity(for: token) }
        let accounts = accounts
        return try await recent.identities.answer(for: token) { try await accounts.identity(for: token) }
    }
}

/// Event rows for reads, answered from memory for a second (`RecentReads`): the gallery list reads the row for
/// its change position with every request. Forgotten like identities.
package struct RememberedEvents: Sendable {
    let events: EventRepository
    package let recent: RecentReads

    package func event(_ id: String) async throws -> Event? {
        let events = events
        return try await recent.events.answer(for: id) { try await events.find(id: id) }
    }
}
