import NIOConcurrencyHelpers
import NIOCore

/// What reads may take from memory for a second (PERF-2): who holds a token, and event rows. A phone
/// refreshing the gallery asks both questions with every request, and each answer — a query and two thread
/// hops — cost more than the page itself.
///
/// Only reads (GET, HEAD) use them. Every write on this instance forgets everything before and after it
/// runs (`AuthenticationMiddleware`), and so does every change the `ChangeHub` hears of (photos processed,
/// reveals, deletions, and other instances' writes through PostgreSQL notifications). So a sign-out, a guest
/// leaving or a shot taken here is seen by the next request; what another instance changes is seen when
/// its notification arrives, and within `lifetime` if it is lost.
final class RecentReads: Sendable {
    let identities: RecentAnswers<Identity>
    let events: RecentAnswers<Event>

    init(lifetime: TimeAmount = .seconds(1)) {
        identities = RecentAnswers(lifetime: lifetime)
        events = RecentAnswers(lifetime: lifetime)
    }

    func forgetAll() {
        identities.forgetAll()
        events.forgetAll()
    }
}

/// Answers kept for `lifetime`, by key. A lookup that overlapped a `forgetAll` is not kept (a generation
/// counter), so a write can never be followed by an answer read before it.
final class RecentAnswers<Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let expires: NIODeadline
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Moves at every `forgetAll`, so that an answer read before it is not stored after it.
        var generation: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    let lifetime: TimeAmount
    let entryLimit: Int

    init(lifetime: TimeAmount = .seconds(1), entryLimit: Int = 10_000) {
        self.lifetime = lifetime
        self.entryLimit = entryLimit
    }

    /// The answer for `key` if it was looked up within `lifetime` and nothing was forgotten since, and the
    /// generation to hand back to `store` otherwise.
    func answer(for key: String) -> (value: Value?, generation: UInt64) {
        state.withLockedValue { state in
            guard let entry = state.entries[key], entry.expires > .now() else { return (nil, state.generation) }
            return (entry.value, state.generation)
        }
    }

    /// Keeps what a lookup found, unless something was forgotten since it began.
    func store(_ value: Value, for key: String, lookedUpAt generation: UInt64) {
        let expires = NIODeadline.now() + lifetime
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            if state.entries.count >= entryLimit { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = Entry(value: value, expires: expires)
        }
    }

    /// The answer from memory, or `lookUp`'s (kept when it found something: unknown keys are asked again).
    func answer(for key: String, lookUp: () async throws -> Value?) async rethrows -> Value? {
        let (known, generation) = answer(for: key)
        if let known { return known }
        let found = try await lookUp()
        if let found { store(found, for: key, lookedUpAt: generation) }
        return found
    }

    func forgetAll() {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }
}
