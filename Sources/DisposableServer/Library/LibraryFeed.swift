import Foundation

/// Wakes the library streams of one user when their library changes on this instance. Other instances' changes
/// are found by the streams' periodic look at the database (every two seconds), so nothing is ever missed.
actor LibraryFeed {
    private var waiters: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var next = 0

    func changed(_ userID: String) {
        for waiter in (waiters.removeValue(forKey: userID) ?? [:]).values { waiter.resume() }
    }

    /// Returns at the user's next change here, or after `timeout`.
    func wait(_ userID: String, timeout: Duration) async {
        let id = next
        next += 1
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                await self.timeOut(userID, id)
            }
            await withCheckedContinuation { continuation in
                waiters[userID, default: [:]][id] = continuation
            }
            group.cancelAll()
        }
    }

    private func timeOut(_ userID: String, _ id: Int) {
        waiters[userID]?.removeValue(forKey: id)?.resume()
        if waiters[userID]?.isEmpty == true { waiters[userID] = nil }
    }
}
