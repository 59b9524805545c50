import DisposableCore
import DisposableFeatures
import DisposablePlatform
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with the connection guard around it (`ConnectionGuard`) and, optionally,
/// the media fast path's `RequestShortcut` in front of its decoder.
package struct GuardedHTTP1Channel: HTTPChannelHandler {
    package typealias Value = HTTP1Channel.Value

    private let http1: HTTP1Channel
    private let answers: (@Sendable () -> any ShortcutAnswers)?
    private let limits: ConnectionLimits
    private let clients: ConnectionGuard.ClientCounts

    package init(
        responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, clients: ConnectionGuard.ClientCounts,
        answers: (@Sendable () -> any ShortcutAnswers)?
    ) {
        self.limits = limits
        self.clients = clients
        self.answers = answers
        self.http1 = HTTP1Channel(responder: responder)
    }

    package var responder: HTTPChannelHandler.Responder { http1.responder }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "local"
        guard clients.admit(address) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(TooManyConnections())
        }
        channel.closeFuture.whenComplete { [clients] _ in clients.release(address) }
        let times = ConnectionGuard.ConnectionTimes()
        do {
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.reads)
            // Hummingbird adds its handlers after these, so they stay next to the socket.
            let handlers = channel.pipeline.syncOperations
            try handlers.addHandler(ConnectionGuard.ReadWatch(times: times, limits: limits))
            if let answers { try handlers.addHandler(RequestShortcut(answers: answers())) }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        // Hummingbird puts additional handlers right behind the HTTP codec; the channel is made per connection
        // so that its watch shares this connection's times.
        let shortcut = answers != nil
        let connection = HTTP1Channel(
            responder: http1.responder,
            configuration: .init(
                additionalChannelHandlers: (shortcut ? [RequestShortcut.ResponseEnds()] : []) + [ConnectionGuard.RequestWatch(times: times)]))
        return connection.setup(channel: channel, logger: logger)
    }

    package func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }

    /// Reads of up to 256 KB where a body keeps the socket full (NIO's default stops at 64 KB): a 3 MB photo is a
    /// dozen chunks through the HTTP decoder and the body's stream, each a wake-up of the task receiving it, not fifty.
    /// Idle and small requests stay on small buffers, as the allocator shrinks back.
    private static let reads = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 * 1024)

    package struct TooManyConnections: Error { package init() {} }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 behind the connection guard, with `answers` (made once per connection) answering what it can
    /// from the channel when the media fast path is on.
    package static func guardedHTTP1(
        limits: ConnectionLimits, trustedProxies: TrustedProxies, shortcut answers: (@Sendable () -> any ShortcutAnswers)?
    ) -> HTTPServerBuilder {
        let clients = ConnectionGuard.ClientCounts(limit: limits.perClient, exempt: trustedProxies)
        return HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits, clients: clients, answers: answers) }
    }
}
