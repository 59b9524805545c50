/// Wakes an idle worker when work arrives; without a wake-up they look again after a timeout
/// (which also picks up work queued by other instances).
import DisposableCore

package actor WorkSignal {
    private struct Waiter {
        /// The least urgent work the worker takes (`JobQueue.Priority`).
        let upTo: JobQueue.Priority
        let continuation: CheckedContinuation<Void, Never>
    }

    private var waiters: [Int: Waiter] = [:]
    private var nextID = 0
    private var pending = false
    /// When a photo shown by its first look last arrived.
    private var lastSeenPhoto: ContinuousClock.Instant?
    /// How long photos shown by their first look stop arriving before the worker kept for event photos renders them.
    package static let quietAfterSeenPhotos = Duration.milliseconds(500)

    /// One job of `priority` is queued: one idle worker that takes it is woken, not every worker — each would ask
    /// the queue, and all but one would find nothing (three queries an upload). With none idle, the next to wait
    /// looks at once.
    package func notify(_ priority: JobQueue.Priority) {
        if priority == .seen { lastSeenPhoto = .now }
        guard let id = waiters.first(where: { $0.value.upTo.rawValue >= priority.rawValue })?.key else {
            pending = true
            return
        }
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    /// The least urgent work the worker kept for event photos takes now: photos nobody sees yet, and photos their first
    /// look shows once they have stopped arriving for a moment. During a burst of them (an event's night) a third
    /// render beside the other workers' took the cores the phones' requests need (BENCHMARKS.md); after it, it helps
    /// the queue drain.
    package func eventPhotosReach() -> JobQueue.Priority {
        guard let lastSeenPhoto, ContinuousClock.now - lastSeenPhoto < Self.quietAfterSeenPhotos else { return .seen }
        return .unseen
    }

    /// Returns when notified of work up to `upTo`, or after `timeout`, whichever comes first.
    package func wait(upTo: JobQueue.Priority, timeout: Duration) async {
        if pending {
            pending = false
            return
        }
        let id = nextID
        nextID += 1
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        await withCheckedContinuation { waiters[id] = Waiter(upTo: upTo, continuation: $0) }
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    package init() {}
}
