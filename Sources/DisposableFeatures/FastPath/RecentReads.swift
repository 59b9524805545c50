import DisposableCore
import DisposablePlatform
import NIOConcurrencyHelpers
import NIOCore

/// What reads may take from memory for a while (PERF-2): who holds a token, event rows, and which of an
/// event's shooters have a picture (`ShooterPictures`). A phone refreshing the gallery asks all three with
/// every request, and each answer — a query and two thread hops — cost more than the page itself.
///
/// Only reads (GET, HEAD) use them. Every write on this instance forgets everything before and after it runs
/// (`ForgetRecentReadsMiddleware`), except an upload: it changes the uploader's own count of shots and its event's
/// feed position, nobody's session, so it forgets the caller's identity and moves the event's row along (`heard`).
/// Other instances are told of every write but uploads through PostgreSQL and forget everything too
/// (`PostgresChangeListener`). Every other change the `ChangeHub` hears of (reveals, other instances' commits)
/// forgets its event's row, and an event deleted here everything. So a sign-out, a guest leaving or a shot taken is
/// seen by the next request here, and on other instances when the notification arrives; identities are kept longer
/// than the rest, since only writes change them.
package final class RecentReads: Sendable {
    package let identities: RecentAnswers<Identity>
    package let events: RecentAnswers<Event>
    package let pictures: RecentAnswers<[String: String]>
    /// How many times everything was forgotten: a write that may have ended a grant happened (`writesThatMayRevoke`).
    private let forgottenAll = NIOLockedValueBox<UInt64>(0)

    /// `identityLifetime` is longer: identities change only by writes, which every instance hears of at once.
    package init(lifetime: TimeAmount = .seconds(1), identityLifetime: TimeAmount = .seconds(10)) {
        identities = RecentAnswers(lifetime: identityLifetime)
        events = RecentAnswers(lifetime: lifetime)
        pictures = RecentAnswers(lifetime: lifetime)
    }

    package func forgetAll() {
        forgottenAll.withLockedValue { $0 &+= 1 }
        identities.forgetAll()
        events.forgetAll()
        pictures.forgetAll()
    }

    /// Moves with every write here or on another instance that may end someone's grant (a sign-out, a guest leaving
    /// or removed, a wall link turned off, an event deleted): uploads do not. A live stream rechecks its grant when it
    /// moved (`EventStream`); 300 streams each asking the database every few seconds otherwise cost more queries
    /// than a busy night's gallery pages.
    package var writesThatMayRevoke: UInt64 { forgottenAll.withLockedValue { $0 } }

    /// After an upload by the holder of `token` (nil: none was sent). Its event's row moves along when the photo is
    /// recorded (`heard`).
    package func forgetAfterUpload(token: String?) {
        if let token { identities.forget(token) }
    }

    /// What the `ChangeHub` heard of an event. A photo added or rendered here changes nothing of its event's row that
    /// reads use but the feed's position (its first photo's time and the organizer's count of shots are not read from
    /// memory): a row remembered at exactly the position the write started from moves along with it, one read after
    /// it stays, and any other is forgotten, since something else (a setting perhaps) happened in between. Reading
    /// the row again after each of a night's photos was most of the gallery's queries, and a round trip its pages
    /// waited for.
    package func heard(_ news: EventNews, of id: String) {
        switch news {
        case .changed:
            events.forget(id)
        case .moved(let move):
            events.amend(id) { event in
                if event.changeSeq >= move.to { return event }  // read after the write
                guard event.changeSeq == move.from else { return nil }
                var moved = event
                moved.changeSeq = move.to
                return moved
            }
        case .reached(let position):
            events.amend(id) { $0.changeSeq >= position ? $0 : nil }
        }
    }
}

/// Answers kept for `lifetime`, by key. Concurrent misses of a key share one lookup: when an answer
/// expires under load, the 64 requests waiting for it would otherwise all go to the database at once (that
/// was most of PERF-2's p99). A lookup that overlapped the forgetting of its key is not kept, and is not joined
/// by a request that came after the forgetting, so a write is never followed by an answer read before it.
package final class RecentAnswers<Value: Sendable>: Sendable {
    private enum Slot {
        case known(Value, expires: NIODeadline)
        case loading(Task<Value?, any Error>, lookup: UInt64)
    }

    /// What a request does: take the answer, wait for the lookup under way, or lead a new one.
    private enum Step {
        case known(Value)
        case join(Task<Value?, any Error>)
        case lead(Task<Value?, any Error>, lookup: UInt64)
    }

    private struct State {
        var slots: [String: Slot] = [:]
        /// Numbers lookups, so that one whose slot was forgotten (and perhaps taken by a newer lookup) stores nothing.
        var lookups: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    package let lifetime: TimeAmount
    package let entryLimit: Int

    package init(lifetime: TimeAmount = .seconds(1), entryLimit: Int = 10_000) {
        self.lifetime = lifetime
        self.entryLimit = entryLimit
    }

    /// The answer from memory, or from the lookup under way for `key`, or from `lookUp` (kept when it found
    /// something: unknown keys are asked again).
    package func answer(for key: String, lookUp: @escaping @Sendable () async throws -> Value?) async throws -> Value? {
        let step = state.withLockedValue { state -> Step in
            switch state.slots[key] {
            case .known(let value, let expires) where expires > .now(): return .known(value)
            case .loading(let task, _): return .join(task)
            default:
                if state.slots.count >= entryLimit { state.slots.removeAll(keepingCapacity: true) }
                state.lookups &+= 1
                let task = Task { try await lookUp() }
                state.slots[key] = .loading(task, lookup: state.lookups)
                return .lead(task, lookup: state.lookups)
            }
        }
        switch step {
        case .known(let value): return value
        case .join(let task): return try await task.value
        case .lead(let task, let lookup):
            let result = await task.result
            let expires = NIODeadline.now() + lifetime
            state.withLockedValue { state in
                guard case .loading(_, lookup)? = state.slots[key] else { return }  // forgotten meanwhile
                if case .success(let value?) = result {
                    state.slots[key] = .known(value, expires: expires)
                } else {
                    state.slots[key] = nil
                }
            }
            return try result.get()
        }
    }

    package func forget(_ key: String) {
        state.withLockedValue { _ = $0.slots.removeValue(forKey: key) }
    }

    /// Changes the answer kept for `key` (nil: forgets it), keeping its expiry. A lookup under way is forgotten: it may
    /// have read before the change.
    package func amend(_ key: String, _ change: (Value) -> Value?) {
        state.withLockedValue { state in
            switch state.slots[key] {
            case .known(let value, let expires):
                state.slots[key] = change(value).map { .known($0, expires: expires) }
            case .loading:
                state.slots[key] = nil
            case nil:
                break
            }
        }
    }

    package func forgetAll() {
        state.withLockedValue { $0.slots.removeAll(keepingCapacity: true) }
    }
}
