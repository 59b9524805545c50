/// A one-way gate: tasks wait at it until start-up work (migrations, the storage sweep) is done.
package actor StartupGate {
    private var isOpen = false
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var next = 0

    package func open() {
        isOpen = true
        for waiter in waiters.values { waiter.resume() }
        waiters.removeAll()
    }

    /// Returns once start-up is done, or as soon as the waiting task is cancelled: when start-up fails the
    /// gate never opens, and a service still waiting here would hold the shutdown forever.
    package func wait() async {
        if isOpen || Task.isCancelled { return }
        let id = next
        next += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiters[id] = $0 }
        } onCancel: {
            // Runs on the actor after the continuation is stored (this call holds the actor until it suspends).
            Task { await self.release(id) }
        }
    }

    private func release(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    package init() {}
}
