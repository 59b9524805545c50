/// How long a connection may stay silent or slow, and how many one client may hold. The
/// defaults suit a venue, where a whole wedding shares one address, and a proxy in front, whose connections
/// are not capped (it has its own limits).
import DisposableCore

public struct ConnectionLimits: Sendable {
    /// A connection with no request in progress is closed after this long without a byte.
    public var idleTimeout: Duration
    /// A request's head must arrive whole within this long of its first byte.
    public var headerTimeout: Duration
    /// A request body that stops arriving for this long ends the connection.
    public var bodyTimeout: Duration
    /// Open connections per client address (trusted proxies excepted).
    public var perClient: Int
    /// Live streams (the change feed) open per session token.
    public var liveStreamsPerToken: Int

    public init(
        idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30),
        perClient: Int = 1024, liveStreamsPerToken: Int = 8
    ) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.perClient = perClient
        self.liveStreamsPerToken = liveStreamsPerToken
    }
}
