import DisposableCore
import DisposablePlatform
import Foundation

/// Wakes the streams waiting on one key (a user's library, the notifications) when something changes on this
/// instance. Other instances' changes are found by the streams' periodic look at the database (every two
/// seconds), so nothing is ever missed.
package actor StreamWaker {
    private var waiters: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var next = 0

    package func changed(_ key: String) {
        for waiter in (waiters.removeValue(forKey: key) ?? [:]).values { waiter.resume() }
    }

    /// Returns at the user's next change here, or after `timeout`.
    package func wait(_ key: String, timeout: Duration) async {
        let id = next
        next += 1
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                await self.timeOut(key, id)
            }
            await withCheckedContinuation { continuation in
                waiters[key, default: [:]][id] = continuation
            }
            group.cancelAll()
        }
    }

    private func timeOut(_ key: String, _ id: Int) {
        waiters[key]?.removeValue(forKey: id)?.resume()
        if waiters[key]?.isEmpty == true { waiters[key] = nil }
    }
}
