import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with a `RequestShortcut` in front of its decoder.
struct ShortcutHTTP1Channel: HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    private let http1: HTTP1Channel
    private let answers: @Sendable () -> any ShortcutAnswers

    init(responder: @escaping HTTPChannelHandler.Responder, answers: @escaping @Sendable () -> any ShortcutAnswers) {
        // `ResponseEnds` goes where Hummingbird puts additional handlers: right behind the HTTP codec.
        self.http1 = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [RequestShortcut.ResponseEnds()]))
        self.answers = answers
    }

    var responder: HTTPChannelHandler.Responder { http1.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            // Hummingbird adds its handlers after this one, so it stays first: next to the socket.
            try channel.pipeline.syncOperations.addHandler(RequestShortcut(answers: answers()))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with `answers` (made once per connection) answering what it can from the channel.
    static func http1(shortcut answers: @escaping @Sendable () -> any ShortcutAnswers) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in ShortcutHTTP1Channel(responder: responder, answers: answers) }
    }
}
