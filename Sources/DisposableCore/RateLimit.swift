/// A token bucket: `burst` attempts at once, then one more every `refillEvery`.
public struct RateLimit: Sendable {
    public var burst: Int
    public var refillEvery: Duration

    public init(burst: Int, refillEvery: Duration) {
        self.burst = burst
        self.refillEvery = refillEvery
    }
}
