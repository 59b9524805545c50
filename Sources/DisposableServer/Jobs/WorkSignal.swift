/// Wakes an idle worker when work arrives; without a wake-up they look again after a timeout
/// (which also picks up work queued by other instances).
actor WorkSignal {
    private struct Waiter {
        /// The least urgent work the worker takes (`JobQueue.Priority`).
        let upTo: JobQueue.Priority
        let continuation: CheckedContinuation<Void, Never>
    }

    private var waiters: [Int: Waiter] = [:]
    private var nextID = 0
    private var pending = false

    /// One job of `priority` is queued: one idle worker that takes it is woken, not every worker — each would ask
    /// the queue, and all but one would find nothing (three queries an upload). With none idle, the next to wait
    /// looks at once.
    func notify(_ priority: JobQueue.Priority) {
        guard let id = waiters.first(where: { $0.value.upTo.rawValue >= priority.rawValue })?.key else {
            pending = true
            return
        }
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    /// Returns when notified of work up to `upTo`, or after `timeout`, whichever comes first.
    func wait(upTo: JobQueue.Priority, timeout: Duration) async {
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
}
