import Foundation

/// Token buckets per client address (SEC-3, JN-4): a burst of attempts, then one more per interval.
actor RateLimiter {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let limit: RateLimit
    private var buckets: [String: Bucket] = [:]
    private let clock = ContinuousClock()

    init(_ limit: RateLimit) {
        self.limit = limit
    }

    private var refillSeconds: Double {
        Double(limit.refillEvery.components.seconds) + Double(limit.refillEvery.components.attoseconds) / 1e18
    }

    /// Throws 429 with `Retry-After` when `key` has no attempt left; does not use one up.
    func check(_ key: String) throws {
        let bucket = refreshed(key)
        if bucket.tokens < 1 {
            throw Problem.tooManyRequests(retryAfterSeconds: max(1, Int(((1 - bucket.tokens) * refillSeconds).rounded(.up))))
        }
    }

    /// Uses up one attempt of `key` (a failed log-in, a wrong code…).
    func consume(_ key: String) {
        var bucket = refreshed(key)
        bucket.tokens -= 1
        buckets[key] = bucket
        if buckets.count > 50_000 { pruneFullBuckets() }
    }

    /// `check` then `consume`: for actions limited whether or not they succeed.
    func take(_ key: String) throws {
        try check(key)
        consume(key)
    }

    private func refreshed(_ key: String) -> Bucket {
        let now = clock.now
        guard var bucket = buckets[key] else { return Bucket(tokens: Double(limit.burst), updated: now) }
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(Double(limit.burst), bucket.tokens + seconds / refillSeconds)
        bucket.updated = now
        return bucket
    }

    /// Forget clients that are back to a full bucket, so memory stays bounded.
    private func pruneFullBuckets() {
        buckets = buckets.filter { refreshed($0.key).tokens < Double(limit.burst) }
    }
}
