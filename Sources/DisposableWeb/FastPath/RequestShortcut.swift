import DisposableCore
import DisposableFeatures
import DisposablePlatform
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// What `RequestShortcut` may answer itself.
package protocol ShortcutAnswers {
    /// The response's head (status line and fields, blank line included) and body, or nil to hand the
    /// request on to the router.
    func answer(_ head: RequestHead, allocator: ByteBufferAllocator) -> (head: ByteBuffer, body: ByteBuffer?)?
}

/// Sits in front of the HTTP decoder and answers, straight from the bytes, the few requests that are
/// nothing but a lookup in memory (signed thumbnail links, PERF-3). Decoding such a request into HTTP types,
/// passing it through the pipeline and encoding the answer again cost more than the answer itself.
///
/// Every other request is handed on untouched, cut at its own boundaries (head, then `Content-Length` body
/// bytes), so the decoder behind sees exactly the stream the client sent. A head this reader does not
/// accept (chunked bodies, upgrades, anything not plainly HTTP/1.x) ends the shortcut for the connection:
/// from then on every byte is handed on. Answers leave in the order requests came: while a request handed
/// on has no complete response yet (`ResponseEnds` tells), later ones are handed on too.
package final class RequestShortcut: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = IOData
    package typealias OutboundOut = IOData

    /// Longest head waited for; the decoder behind allows 80 KB, and answers what is longer.
    package static let headLimit = 64 * 1024

    private enum Mode {
        /// At a request boundary: the next bytes are a head.
        case heads
        /// Handing on the body of a request handed on.
        case body(remaining: Int)
        /// Handing on every byte from now on.
        case aside
    }

    private let answers: any ShortcutAnswers
    private var mode = Mode.heads
    /// The start of a head still arriving, and how much of it was already searched for its end.
    private var partial: (bytes: ByteBuffer, searched: Int)?
    /// Requests handed on whose response has not ended yet.
    private var unanswered = 0
    /// Bytes were handed on since the last read completed (otherwise those behind have nothing to complete).
    private var handedOnSinceComplete = false

    package init(answers: any ShortcutAnswers) {
        self.answers = answers
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        var searched = 0
        if var partial = partial.take() {
            partial.bytes.writeBuffer(&input)
            (input, searched) = partial
        }
        var wrote = false
        defer { if wrote { context.flush() } }
        while input.readableBytes > 0 {
            switch mode {
            case .aside:
                handOn(input, context: context)
                return
            case .body(let remaining):
                let part = input.readSlice(length: min(remaining, input.readableBytes))!
                mode = part.readableBytes == remaining ? .heads : .body(remaining: remaining - part.readableBytes)
                handOn(part, context: context)
            case .heads:
                let found = input.withUnsafeReadableBytes { bytes -> (length: Int, head: RequestHead?)? in
                    guard let length = RequestHead.end(in: bytes, from: max(0, searched - 3)) else { return nil }
                    return (length, RequestHead.parse(UnsafeRawBufferPointer(rebasing: bytes[..<length])))
                }
                searched = 0
                guard let found else {
                    if input.readableBytes > Self.headLimit {
                        mode = .aside
                        continue
                    }
                    partial = (input, input.readableBytes)
                    return
                }
                guard let head = found.head else {
                    mode = .aside
                    continue
                }
                if unanswered == 0, head.contentLength == 0, context.channel.isWritable,
                    let response = answers.answer(head, allocator: context.channel.allocator)
                {
                    input.moveReaderIndex(forwardBy: found.length)
                    context.write(wrapOutboundOut(.byteBuffer(response.head)), promise: nil)
                    if let body = response.body { context.write(wrapOutboundOut(.byteBuffer(body)), promise: nil) }
                    wrote = true
                } else {
                    unanswered += 1
                    if head.contentLength > 0 { mode = .body(remaining: head.contentLength) }
                    handOn(input.readSlice(length: found.length)!, context: context)
                }
            }
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        guard handedOnSinceComplete else { return }
        handedOnSinceComplete = false
        context.fireChannelReadComplete()
    }

    package func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is ResponseEnded else { return context.triggerUserOutboundEvent(event, promise: promise) }
        unanswered = max(0, unanswered - 1)
        promise?.succeed()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { handOnPartial(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        handOnPartial(context: context)
        context.fireChannelInactive()
    }

    private func handOn(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        handedOnSinceComplete = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    /// The connection ends in the middle of a head: the decoder behind decides what that means.
    private func handOnPartial(context: ChannelHandlerContext) {
        guard let partial = partial.take() else { return }
        mode = .aside
        handOn(partial.bytes, context: context)
    }

    /// Sent by `ResponseEnds` when a response the router wrote is complete.
    package struct ResponseEnded { package init() {} }

    /// Sits behind the HTTP codec and tells `RequestShortcut` when a response ends.
    package final class ResponseEnds: ChannelOutboundHandler, RemovableChannelHandler {
        package typealias OutboundIn = HTTPResponsePart
        package typealias OutboundOut = HTTPResponsePart

        package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let ended = if case .end = unwrapOutboundIn(data) { true } else { false }
            context.write(data, promise: promise)
            if ended { context.triggerUserOutboundEvent(ResponseEnded(), promise: nil) }
        }
    }
}
