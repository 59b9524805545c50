import NIOConcurrencyHelpers
import NIOCore

/// Who held a token a moment ago, for reads (PERF-2): a phone refreshing the gallery asks the same question
/// with every request, and the answer — a three-table query and two thread hops — cost more than the page.
///
/// Only reads (GET, HEAD) use it. Every write on this instance forgets everything, before and after it runs,
/// so a sign-out, a guest leaving or a shot taken here is seen by the next request; a lookup that began
/// before a write is not kept. What changes on another instance is seen within `lifetime`.
final class RecentIdentities: Sendable {
    private struct Entry {
        let identity: Identity
        let expires: NIODeadline
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Moves at every write, so that an answer read before it is not stored after it.
        var generation: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    let lifetime: TimeAmount
    let entryLimit: Int

    init(lifetime: TimeAmount = .seconds(1), entryLimit: Int = 10_000) {
        self.lifetime = lifetime
        self.entryLimit = entryLimit
    }

    /// The identity for `token` if it was looked up within `lifetime` and nothing was written since, and the
    /// generation to hand back to `store` otherwise.
    func identity(for token: String) -> (identity: Identity?, generation: UInt64) {
        state.withLockedValue { state in
            guard let entry = state.entries[token], entry.expires > .now() else { return (nil, state.generation) }
            return (entry.identity, state.generation)
        }
    }

    /// Keeps what a lookup found, unless something was written since it began. Unknown tokens are not kept.
    func store(_ identity: Identity, for token: String, lookedUpAt generation: UInt64) {
        let expires = NIODeadline.now() + lifetime
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            if state.entries.count >= entryLimit { state.entries.removeAll(keepingCapacity: true) }
            state.entries[token] = Entry(identity: identity, expires: expires)
        }
    }

    func forgetAll() {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }
}
