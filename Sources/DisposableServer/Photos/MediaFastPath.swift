import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers signed thumbnail and preview links from the channel itself when the file is already in memory
/// (PERF-3): a gallery asks for the same few dozen thumbnails again and again, and for those the trip through
/// the async request machinery (a task per request, the router, the middleware) cost more than twice the
/// answer. Everything else — a file not in memory, an expired or forged link, a HEAD, a request that closes
/// the connection — goes on to `MediaController` unchanged, which reads the file and puts it in memory.
///
/// One per connection. Responses must leave in the order requests came: while a request handed on is not
/// answered yet, later ones are handed on too.
final class MediaFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let services: AppServices
    /// Requests handed on whose response has not ended yet.
    private var handedOn = 0
    /// We answered the request whose remaining parts (its end) are still coming in.
    private var answered = false

    /// The `Date` header, written once a second.
    private var date = (second: Int64(0), text: "")

    init(services: AppServices) {
        self.services = services
    }

    private func httpDate() -> String {
        let now = Date()
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        if second != date.second { date = (second, now.httpDate) }
        return date.text
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if handedOn == 0, let (head, body) = answer(request) {
                answered = true
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            handedOn += 1
            context.fireChannelRead(data)
        case .body:
            if !answered { context.fireChannelRead(data) }
        case .end:
            if answered { answered = false } else { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { handedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// The response when this request is a valid link to a file in memory; nil to hand it on.
    private func answer(_ request: HTTPRequest) -> (HTTPResponse, ByteBuffer?)? {
        // A request that closes the connection is left to the router, which closes it after the answer.
        guard request.method == .get, request.headerFields[.connection]?.lowercased().contains("close") != true,
            let link = SignedMediaRequest(target: request.path ?? ""),
            MediaController.isID(link.eventID), MediaController.isID(link.photoID)
        else { return nil }
        let now = services.clock.now
        guard services.media.check(eventID: link.eventID, photoID: link.photoID, until: link.until, signature: link.signature, now: now) == .valid,
            let bytes = services.blobs.cached(key: BlobKey.media(link.file, link.eventID, link.photoID))
        else { return nil }
        var fields = MediaController.headers(photoID: link.photoID, file: link.file, until: link.until, now: now)
        SecurityHeadersMiddleware<AppRequestContext>.addCommonHeaders(to: &fields)
        fields[.date] = httpDate()
        fields[.server] = AppServices.serverName
        if request.headerFields[.ifNoneMatch] == fields[.eTag] { return (HTTPResponse(status: .notModified, headerFields: fields), nil) }
        fields[.contentLength] = String(bytes.readableBytes)
        return (HTTPResponse(status: .ok, headerFields: fields), bytes)
    }
}

/// `/api/v1/media/<event>/<photo>/<file>?until=<seconds>&sig=<hex>`, exactly as `MediaLinks` writes it
/// (any other spelling is left to the router). Read byte by byte: splitting the `String` by characters was a
/// sixth of the fast path's time.
struct SignedMediaRequest {
    let eventID: String
    let photoID: String
    let file: MediaLinks.File
    let until: Int64
    let signature: String

    init?(target: String) {
        var target = target
        guard let parsed = target.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(eventID: String, photoID: String, file: MediaLinks.File, until: Int64, signature: String) {
        self.eventID = eventID
        self.photoID = photoID
        self.file = file
        self.until = until
        self.signature = signature
    }

    private static let prefix = Array("/api/v1/media/".utf8)
    /// What separates the five parts after the prefix: event / photo / file ? until= & sig=
    private static let separators = Array("//?&".utf8)

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SignedMediaRequest? {
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        var parts: [Range<Int>] = []
        parts.reserveCapacity(5)
        var start = prefix.count
        for index in start..<bytes.count where bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "&") {
            guard parts.count < separators.count, bytes[index] == separators[parts.count] else { return nil }
            parts.append(start..<index)
            start = index + 1
        }
        parts.append(start..<bytes.count)
        guard parts.count == 5 else { return nil }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        let untilField = bytes[parts[3]], sigField = bytes[parts[4]]
        guard let file = MediaLinks.File(rawValue: text(parts[2])),
            untilField.starts(with: "until=".utf8), sigField.starts(with: "sig=".utf8),
            let until = decimal(untilField.dropFirst("until=".utf8.count))
        else { return nil }
        return SignedMediaRequest(eventID: text(parts[0]), photoID: text(parts[1]), file: file, until: until,
                                  signature: text(parts[4].dropFirst("sig=".utf8.count)))
    }

    /// 1 to 18 decimal digits (no sign: our expiries are after 1970).
    private static func decimal(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        guard (1...18).contains(digits.count) else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}
