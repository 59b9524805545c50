import DisposableCore
import DisposablePlatform
import NIOConcurrencyHelpers

/// Answers that hold while an event's change feed stands still (PERF-2): each kept with the feed position it was
/// read at, and given to any request that read its event at that position or before — what was read later is
/// only newer. Concurrent misses of a key share one lookup: in a busy night the position moves many times a
/// second, and the 250 phones a second asking each time would otherwise all go to the database at once.
package final class AnswersAtPosition<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private enum Slot {
        case known(Value, at: Int64)
        case loading(Task<Value, any Error>, at: Int64, lookup: UInt64)
    }

    private enum Step {
        case known(Value)
        case join(Task<Value, any Error>)
        case lead(Task<Value, any Error>, lookup: UInt64)
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        var lookups: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Keys (event, audience, order, page…) kept at most; past it everything is dropped and read again.
    package let entryLimit: Int

    package init(entryLimit: Int = 256) {
        self.entryLimit = entryLimit
    }

    /// The answer for `key` read at `position` or later: from memory, from the lookup under way, or from `lookUp`
    /// (which must read it after the event row that gave `position`).
    package func answer(_ key: Key, at position: Int64, lookUp: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let step = state.withLockedValue { state -> Step in
            switch state.slots[key] {
            case .known(let value, let at) where at >= position: return .known(value)
            case .loading(let task, let at, _) where at >= position: return .join(task)
            default:
                if state.slots.count >= entryLimit { state.slots.removeAll(keepingCapacity: true) }
                state.lookups &+= 1
                let task = Task { try await lookUp() }
                state.slots[key] = .loading(task, at: position, lookup: state.lookups)
                return .lead(task, lookup: state.lookups)
            }
        }
        switch step {
        case .known(let value): return value
        case .join(let task): return try await task.value
        case .lead(let task, let lookup):
            let result = await task.result
            state.withLockedValue { state in
                // A newer lookup may have taken the slot meanwhile: it stays.
                guard case .loading(_, let at, lookup)? = state.slots[key] else { return }
                if case .success(let value) = result {
                    state.slots[key] = .known(value, at: at)
                } else {
                    state.slots[key] = nil
                }
            }
            return try result.get()
        }
    }
}
