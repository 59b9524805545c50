import DisposableCore
import Foundation
import Hummingbird
import NIOCore

/// One live feed as Server-Sent Events: what an event's changes, a library's changes and the bell each say, while
/// `EventStream` owns how a stream runs — open at once with a `retry`, send what is new, a heartbeat comment when
/// idle (proxies and phones keep the connection), recheck the grant a few seconds after any write that may have ended
/// it, end on shutdown.
package protocol EventStreamSource: Sendable {
    /// Whether this stream is still the one its tab should hold (the bell keeps one per tab).
    var isCurrent: Bool { get }
    /// Nil while the stream's grant holds; else the last text to send (may be empty) before it ends.
    func revoked() async throws -> String?
    /// The text of what happened since the last call, advancing the position; `.idle` when nothing did.
    mutating func next() async throws -> EventStream.Next
    /// Waits until something may have happened, at most `timeout`.
    func wait(timeout: Duration) async
}

extension EventStreamSource {
    package var isCurrent: Bool { true }
}

package enum EventStream {
    package enum Next: Sendable {
        case send(String)
        case idle
        /// Send this (may be empty) and end the stream.
        case end(String)
    }

    package static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
        .init("X-Accel-Buffering")!: "no",  // nginx: do not buffer the stream
    ]

    /// How often a stream checks that its token still opens what it shows, when a write since may have ended it.
    package static let recheck: Duration = .seconds(5)
    /// How often it checks whatever was written: a token's age ends it without a write.
    package static let fullRecheck: Duration = .seconds(60)

    /// The response: `opening` is a comment naming the stream; `writes` counts the writes that may end a grant
    /// (`RecentReads.writesThatMayRevoke`); `onClose` frees its slot.
    package static func response<Source: EventStreamSource>(
        _ source: Source, opening: String, heartbeat: Duration, writes: @escaping @Sendable () -> UInt64,
        onClose: @escaping @Sendable () -> Void
    ) -> Response {
        Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { onClose() }
                var source = source
                // Tell the browser how long to wait before reconnecting, and open the stream at once.
                try await writer.write(ByteBuffer(string: "retry: 2000\n: \(opening)\n\n"))
                var lastWrite = ContinuousClock.now
                var (looked, checked, writesSeen) = (ContinuousClock.now, ContinuousClock.now, writes())
                // Streams end when the server shuts down; browsers reconnect (to another instance) and resume.
                feed: while !Task.isCancelled && !Task.isShuttingDownGracefully && source.isCurrent {
                    let now = ContinuousClock.now
                    if now - looked >= recheck {
                        looked = now
                        // Read before the check: a write during it is seen at the next look.
                        let written = writes()
                        if written != writesSeen || now - checked >= fullRecheck {
                            writesSeen = written
                            if let farewell = try await source.revoked() {
                                if !farewell.isEmpty { try await writer.write(ByteBuffer(string: farewell)) }
                                break
                            }
                            checked = now
                        }
                    }
                    switch try await source.next() {
                    case .send(let text):
                        try await writer.write(ByteBuffer(string: text))
                        lastWrite = .now
                    case .end(let text):
                        if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                        break feed
                    case .idle:
                        if ContinuousClock.now - lastWrite >= heartbeat {
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                            lastWrite = .now
                        }
                        await source.wait(timeout: min(.seconds(2), heartbeat))
                    }
                }
                try await writer.finish(nil)
            })
    }
}
