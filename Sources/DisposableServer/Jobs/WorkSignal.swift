/// Wakes idle workers when work arrives; without a wake-up they look again after a timeout
/// (which also picks up work queued by other instances).
actor WorkSignal {
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextID = 0
    private var pending = false

    func notify() {
        if waiters.isEmpty {
            pending = true
        } else {
            for waiter in waiters.values { waiter.resume() }
            waiters.removeAll()
        }
    }

    /// Returns when notified or after `timeout`, whichever comes first.
    func wait(timeout: Duration) async {
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
        await withCheckedContinuation { waiters[id] = $0 }
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }
}
