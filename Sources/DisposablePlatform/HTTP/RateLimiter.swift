import DisposableCore
import Foundation

/// Token buckets for one purpose (log-ins, code guesses, registrations; SEC-3, JN-4), each attempt counted
/// against several keys at once — the client address, the account, the event — each with its own budget.
///
/// An attempt takes its tokens *before* the work it guards (a bcrypt check, a code lookup) and gives them
/// back when it turns out legitimate, so parallel attempts cannot all slip through a check made before any
/// of them was counted.
package actor RateLimiter {
    /// What an attempt is counted against.
    package enum Scope: Hashable, Sendable {
        /// The client's address (after trusted proxies).
        case address
        /// The account or event aimed at, from any address.
        case target
        /// The address and the target together: one person's failures on one account or event.
        case pair
        /// The target again, slowly, for addresses that never failed on it once its own budget is spent: a crowd of
        /// fresh addresses buys a few guesses an hour, not one each. Addresses that got in before are exempt.
        case floor
    }

    package struct Key: Hashable, Sendable {
        package let scope: Scope
        package let value: String

        package init(scope: Scope, value: String) {
            self.scope = scope
            self.value = value
        }
    }

    /// The tokens an attempt took, to give back when it succeeds.
    package struct Ticket: Sendable {
        fileprivate let keys: [Key]
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let limits: [Scope: RateLimit]
    private var buckets: [Key: Bucket] = [:]
    /// Pairs (an address on an account) that succeeded: the owner's usual places, which the floor never slows.
    private var known: [Key: ContinuousClock.Instant] = [:]
    private let clock = ContinuousClock()

    /// Keys of a scope without a limit here are not counted.
    package init(_ limits: [Scope: RateLimit]) {
        self.limits = limits
    }

    package init(_ limit: RateLimit) {
        self.init([.address: limit])
    }

    /// Takes one token from each key, or none and throws 429 with `Retry-After` when any is empty.
    ///
    /// An empty target (an account or event many addresses guessed at) never turns away an address that has not
    /// failed on it — its `.pair` bucket is full: otherwise anyone could lock the owner out of their own account
    /// by guessing from a few addresses. Such an address still spends its own pair and address
    /// tokens, so each new address an attacker brings buys one guess at the target, not a burst.
    /// A clean address on a spent target takes from the target's slow floor instead, unless it got in before.
    @discardableResult
    package func take(_ keys: [Key]) throws -> Ticket {
        var counted = keys.filter { limits[$0.scope] != nil }
        let pair = counted.first { $0.scope == .pair }
        let clean = pair.map { refreshed($0).tokens >= Double(limits[.pair]!.burst) } ?? false
        if clean, let spent = counted.first(where: { $0.scope == .target && refreshed($0).tokens < 1 }) {
            counted.removeAll { $0 == spent }
            if limits[.floor] != nil, let pair, known[pair] == nil { counted.append(Key(scope: .floor, value: spent.value)) }
        }
        var current: [Key: Bucket] = [:]
        var wait = 0.0
        for key in counted {
            let bucket = refreshed(key)
            current[key] = bucket
            if bucket.tokens < 1 { wait = max(wait, (1 - bucket.tokens) * seconds(limits[key.scope]!.refillEvery)) }
        }
        if wait > 0 { throw Problem.tooManyRequests(retryAfterSeconds: max(1, Int(wait.rounded(.up)))) }
        for (key, var bucket) in current {
            bucket.tokens -= 1
            buckets[key] = bucket
        }
        if buckets.count > 50_000 { pruneFullBuckets() }
        return Ticket(keys: counted)
    }

    /// One key of the address scope, for purposes counted per address only.
    @discardableResult
    package func take(address: String) throws -> Ticket {
        try take([.address(address)])
    }

    /// The attempt was legitimate (a right password, a code that exists): it costs nothing.
    package func giveBack(_ ticket: Ticket) {
        for key in ticket.keys where key.scope == .pair {
            known[key] = clock.now
            if known.count > 50_000 { known = known.filter { clock.now - $0.value < .seconds(30 * 86_400) } }
        }
        for key in ticket.keys {
            guard let limit = limits[key.scope] else { continue }
            var bucket = refreshed(key)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + 1)
            buckets[key] = bucket
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func refreshed(_ key: Key) -> Bucket {
        let now = clock.now
        let limit = limits[key.scope]!
        guard var bucket = buckets[key] else { return Bucket(tokens: Double(limit.burst), updated: now) }
        bucket.tokens = min(Double(limit.burst), bucket.tokens + seconds(bucket.updated.duration(to: now)) / seconds(limit.refillEvery))
        bucket.updated = now
        return bucket
    }

    /// Forget keys that are back to a full bucket, so memory stays bounded.
    private func pruneFullBuckets() {
        buckets = buckets.filter { refreshed($0.key).tokens < Double(limits[$0.key.scope]!.burst) }
    }
}

/// An address is counted by its network where one client holds many: an IPv6 client's /64 (what a proxy writes
/// for one phone or one home can change within it at will).
extension RateLimiter.Key {
    package static func address(_ address: String) -> Self { .init(scope: .address, value: IPAddress.network(address)) }
    package static func target(_ target: String) -> Self { .init(scope: .target, value: target) }
    package static func pair(_ address: String, _ target: String) -> Self {
        .init(scope: .pair, value: IPAddress.network(address) + "\u{0}" + target)
    }
}
