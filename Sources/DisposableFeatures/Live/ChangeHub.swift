import DisposableCore
import DisposablePlatform
import Foundation

/// Fans an event's new changes out to the subscribers of this instance. The database is the source of
/// truth: on news (a local commit, a PostgreSQL notification, or a periodic check) the hub reads what
/// is new once, keeps the latest entries in memory, and wakes everyone waiting on that event — so a
/// thousand phones cost one query, and a missed notification only delays, never loses, a change.
package actor ChangeHub {
    private let log: ChangeLogRepository
    /// Told of every news, with its event and what it is (a row of the event read before it may be out of date): what
    /// keeps answers in memory forgets them, or moves them along, here.
    private let onNews: @Sendable (_ eventID: String, EventNews) -> Void
    /// Told when an event was deleted here (its guests and their tokens with it), after its news.
    private let onDeletion: @Sendable () -> Void
    /// Entries kept per event for subscribers that are just behind.
    private let recentLimit = 512
    private var recent: [String: [Change]] = [:]
    private var latest: [String: Int64] = [:]
    /// The furthest position writes here that only moved a feed left it at, per event: their notifications come
    /// back from PostgreSQL too, often before the read that follows the write.
    private var writtenHere: [String: Int64] = [:]
    private var waiters: [String: [Int: Waiter]] = [:]
    private var nextWaiter = 0
    /// When the task that ends waits past their deadline (`endOverdueWaits`) wakes next, and which one it is: one
    /// task for every wait, rather than a sleeping task per wait — 300 streams woken by 30 changes a second made
    /// 9,000 of them a second, each coming back to the hub when it woke.
    private var overdueCheck: (at: ContinuousClock.Instant, generation: Int)?
    private var overdueGenerations = 0
    private var lastRefresh: [String: ContinuousClock.Instant] = [:]
    /// Events found deleted: their streams end.
    private var deleted: Set<String> = []

    init(
        log: ChangeLogRepository, onNews: @escaping @Sendable (_ eventID: String, EventNews) -> Void = { _, _ in },
        onDeletion: @escaping @Sendable () -> Void = {}
    ) {
        self.log = log
        self.onNews = onNews
        self.onDeletion = onDeletion
    }

    /// An event deleted on this instance, by a request or in the background: its streams end, and what keeps answers
    /// in memory forgets who its guests were.
    package func deleted(_ eventID: String) async {
        onDeletion()
        await refresh(eventID)
    }

    /// Tells the other instances a request wrote here, once it is done (`PostgresChangeListener`); a failure only
    /// leaves their remembered reads to expire.
    package nonisolated func announceWrite() {
        Task { [log] in try? await log.announceWrite() }
    }

    /// A commit told through PostgreSQL: `payload` is the event's id and the position the commit left (only the id from
    /// an older instance). Every commit is told to every instance, the one that made it too, which reads its entries
    /// anyway: reading the log again for it, and forgetting the event's row, doubled the queries of a busy night.
    package func notified(_ payload: String) async {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard let first = parts.first else { return }
        let eventID = String(first)
        if parts.count == 2, let position = Int64(parts[1]), max(latest[eventID] ?? 0, writtenHere[eventID] ?? 0) >= position {
            onNews(eventID, .reached(position))
            return
        }
        await refresh(eventID)
    }

    /// Reads an event's entries past what the hub has, and wakes its subscribers if there are any.
    /// Without `force` (a subscriber's periodic catch-up) it reads at most every two seconds per event. `moved`: the
    /// news is a write here that only moved the event's feed.
    package func refresh(_ eventID: String, force: Bool = true, moved: FeedMove? = nil) async {
        if let moved {
            if writtenHere.count >= 4096 { writtenHere.removeAll() }
            writtenHere[eventID] = max(writtenHere[eventID] ?? 0, moved.to)
            onNews(eventID, .moved(moved))
        } else if force {
            onNews(eventID, .changed)
        }
        guard waiters[eventID] != nil || recent[eventID] != nil else { return }  // nobody listens here
        let now = ContinuousClock.now
        if !force, let last = lastRefresh[eventID], now - last < .seconds(2) { return }
        lastRefresh[eventID] = now
        let known = latest[eventID] ?? 0
        let read = try? await log.latestAndChanges(eventID: eventID, after: known, limit: 1000)
        guard let (current, fresh) = read else { return }
        if current == nil {
            deleted.insert(eventID)
            wake(eventID)
            return
        }
        // Another refresh may have run while we read: keep only what is still new.
        let new = fresh.filter { $0.seq > (latest[eventID] ?? 0) }
        if let last = new.last {
            recent[eventID, default: []].append(contentsOf: new)
            if recent[eventID]!.count > recentLimit { recent[eventID]!.removeFirst(recent[eventID]!.count - recentLimit) }
            latest[eventID] = last.seq
        }
        wake(eventID)
    }

    /// Entries after `seq`: from memory when the hub has them all, else from the database.
    package func changes(_ eventID: String, after seq: Int64, limit: Int = 500) async throws -> [Change] {
        if let entries = recent[eventID], let first = entries.first, first.seq <= seq + 1 {
            // The entries are in `seq` order: halve to the first one past `seq`. Every open stream asks after every
            // change, so looking at each kept entry instead cost hundreds of streams × 512 entries per photo — on
            // event night most of the server's time.
            var (low, high) = (0, entries.count)
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].seq <= seq { low = middle + 1 } else { high = middle }
            }
            return Array(entries[low..<min(entries.count, low + limit)])
        }
        return try await log.changes(eventID: eventID, after: seq, limit: limit)
    }

    /// Starts following an event from `seq`, so that later refreshes know where to read from.
    package func follow(_ eventID: String, from seq: Int64) {
        if latest[eventID] == nil || recent[eventID] == nil {
            latest[eventID] = max(latest[eventID] ?? 0, seq)
            recent[eventID] = recent[eventID] ?? []
        }
    }

    package func isDeleted(_ eventID: String) -> Bool { deleted.contains(eventID) }

    /// The newest entry's number of an event (0 when nothing happened yet).
    package func latest(_ eventID: String) async throws -> Int64 {
        try await log.latest(eventID: eventID) ?? 0
    }

    /// Returns when the event has entries past `seq` (or is deleted), or after `timeout` (give or take a tenth of a
    /// second: waits ending together are ended at once).
    package func wait(_ eventID: String, after seq: Int64, timeout: Duration) async {
        if (latest[eventID] ?? 0) > seq || deleted.contains(eventID) { return }
        let id = nextWaiter
        nextWaiter += 1
        let deadline = ContinuousClock.now + timeout
        if overdueCheck.map({ deadline < $0.at }) ?? true {
            overdueGenerations += 1
            overdueCheck = (deadline, overdueGenerations)
            Task { [generation = overdueGenerations] in await self.endOverdueWaits(generation: generation) }
        }
        await withCheckedContinuation { waiters[eventID, default: [:]][id] = Waiter(continuation: $0, deadline: deadline) }
    }

    private struct Waiter {
        let continuation: CheckedContinuation<Void, Never>
        let deadline: ContinuousClock.Instant
    }

    /// Sleeps until the first deadline, ends the waits past theirs, and again, until nobody waits. A wait with an
    /// earlier deadline than the one slept for starts a new generation, and this one steps aside.
    private func endOverdueWaits(generation: Int) async {
        let slack = Duration.milliseconds(100)
        while let check = overdueCheck, check.generation == generation {
            try? await Task.sleep(until: check.at, tolerance: slack)
            guard overdueCheck?.generation == generation else { return }
            let now = ContinuousClock.now + slack
            var next: ContinuousClock.Instant?
            for (eventID, waiting) in waiters {
                for (id, waiter) in waiting {
                    if waiter.deadline <= now {
                        waiters[eventID]?[id] = nil
                        waiter.continuation.resume()
                    } else {
                        next = min(next ?? waiter.deadline, waiter.deadline)
                    }
                }
                if waiters[eventID]?.isEmpty == true { waiters[eventID] = nil }
            }
            overdueCheck = next.map { ($0, generation) }
        }
    }

    /// Events someone on this instance follows (for catching up after a lost notification channel).
    package var followedEvents: [String] { Array(recent.keys) }

    private func wake(_ eventID: String) {
        guard let waiting = waiters.removeValue(forKey: eventID) else { return }
        for waiter in waiting.values { waiter.continuation.resume() }
    }
}
