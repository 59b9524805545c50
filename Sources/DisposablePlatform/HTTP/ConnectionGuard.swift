import DisposableCore
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// Keeps connections from being held for nothing: a connection is closed when it sits idle
/// between requests, when a request's head trickles in, or when its body stops arriving; and one client
/// address holds a bounded number of connections. Answers being written (a live stream, a long download) are
/// never cut: the deadlines only watch what the client owes.
///
/// Two small handlers share one `ConnectionTimes` per connection, all on its event loop: `ReadWatch` next to
/// the socket sees every byte in and out (the media fast path holds a head until it is whole, and answers
/// some itself); `RequestWatch` behind the decoder sees requests begin and end, and responses end.
package enum ConnectionGuard {
    /// What the deadlines look at. Touched only on the connection's event loop.
    package final class ConnectionTimes: @unchecked Sendable {
        package var lastRead = NIODeadline.now()
        /// The first byte of a head the decoder has not finished yet.
        package var headStartedAt: NIODeadline?
        /// The last byte of a body still arriving.
        package var bodyLastAt: NIODeadline?
        /// Requests received whose response has not ended.
        package var unanswered = 0

        /// Why the connection should close now, if it should.
        package func expired(_ limits: ConnectionLimits, now: NIODeadline) -> String? {
            if let head = headStartedAt, now - head > .init(limits.headerTimeout) { return "request head too slow" }
            if let body = bodyLastAt, now - body > .init(limits.bodyTimeout) { return "request body stalled" }
            if unanswered == 0, headStartedAt == nil, bodyLastAt == nil, now - lastRead > .init(limits.idleTimeout) { return "idle" }
            return nil
        }

        package init() {}
    }

    /// Next to the socket: notes every read, starts a head's deadline when bytes come while no request is
    /// under way, and checks the deadlines every second. A write while no request is under way is the fast
    /// path answering a head it took whole: that head is done.
    package final class ReadWatch: ChannelDuplexHandler, RemovableChannelHandler {
        package typealias InboundIn = ByteBuffer
        package typealias InboundOut = ByteBuffer
        package typealias OutboundIn = IOData
        package typealias OutboundOut = IOData

        private let times: ConnectionTimes
        private let limits: ConnectionLimits
        private var check: RepeatedTask?

        package init(times: ConnectionTimes, limits: ConnectionLimits) {
            self.times = times
            self.limits = limits
        }

        package func handlerAdded(context: ChannelHandlerContext) {
            let (times, limits, channel) = (times, limits, context.channel)
            check = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { task in
                if times.expired(limits, now: .now()) != nil {
                    task.cancel()
                    channel.close(promise: nil)
                }
            }
        }

        package func handlerRemoved(context: ChannelHandlerContext) {
            check?.cancel()
        }

        package func channelInactive(context: ChannelHandlerContext) {
            check?.cancel()
            context.fireChannelInactive()
        }

        private var betweenRequests: Bool { times.unanswered == 0 && times.bodyLastAt == nil }

        package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let now = NIODeadline.now()
            times.lastRead = now
            if betweenRequests, times.headStartedAt == nil { times.headStartedAt = now }
            context.fireChannelRead(data)
        }

        package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if betweenRequests {
                times.headStartedAt = nil
                times.lastRead = .now()
            }
            context.write(data, promise: promise)
        }
    }

    /// Behind the decoder: a head ends its deadline and starts the body's; the end of a response lets the
    /// idle deadline run again.
    package final class RequestWatch: ChannelDuplexHandler, RemovableChannelHandler {
        package typealias InboundIn = HTTPRequestPart
        package typealias InboundOut = HTTPRequestPart
        package typealias OutboundIn = HTTPResponsePart
        package typealias OutboundOut = HTTPResponsePart

        private let times: ConnectionTimes

        package init(times: ConnectionTimes) {
            self.times = times
        }

        package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head:
                times.headStartedAt = nil
                times.bodyLastAt = .now()
                times.unanswered += 1
            case .body:
                times.bodyLastAt = .now()
            case .end:
                times.bodyLastAt = nil
            }
            context.fireChannelRead(data)
        }

        package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) {
                times.unanswered = max(0, times.unanswered - 1)
                times.lastRead = .now()
            }
            context.write(data, promise: promise)
        }
    }

    /// Open connections per client address, shared by the whole server.
    package final class ClientCounts: Sendable {
        private let counts = NIOLockedValueBox<[String: Int]>([:])
        package let limit: Int
        package let exempt: TrustedProxies

        package init(limit: Int, exempt: TrustedProxies) {
            self.limit = limit
            self.exempt = exempt
        }

        /// Counts a new connection of `address`; false (and not counted) when it already holds `limit`.
        package func admit(_ address: String) -> Bool {
            if exempt.contains(address) { return true }
            return counts.withLockedValue { counts in
                guard counts[address, default: 0] < limit else { return false }
                counts[address, default: 0] += 1
                return true
            }
        }

        package func release(_ address: String) {
            if exempt.contains(address) { return }
            counts.withLockedValue { counts in
                counts[address, default: 1] -= 1
                if counts[address] == 0 { counts[address] = nil }
            }
        }
    }
}

extension TimeAmount {
    package init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
