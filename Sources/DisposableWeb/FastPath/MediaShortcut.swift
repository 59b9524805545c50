import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import HTTPTypes
import NIOCore

/// Answers signed thumbnail and preview links whose file is already in memory, for `RequestShortcut`
/// (PERF-3): a gallery asks for the same few dozen thumbnails again and again. Everything else — a file not
/// in memory, an expired or forged link, a HEAD, a request that closes the connection — goes on to
/// `MediaController`, which reads the file and puts it in memory. Both write the same headers.
///
/// One per connection (it keeps the `Date` header of the current second).
package final class MediaShortcut: ShortcutAnswers {
    private let signer: MediaSigner
    private let blobs: CachingBlobStore
    private let clock: any AppClock
    private let requestLog: RequestLog
    private var date = (second: Int64(0), text: "")

    package init(signer: MediaSigner, blobs: CachingBlobStore, clock: any AppClock, requestLog: RequestLog) {
        self.signer = signer
        self.blobs = blobs
        self.clock = clock
        self.requestLog = requestLog
    }

    package func answer(_ head: RequestHead, allocator: ByteBufferAllocator) -> (head: ByteBuffer, body: ByteBuffer?)? {
        // A request that closes the connection is left to the router, which closes it after the answer.
        guard head.isGet, head.isHTTP11, head.hasHost, !head.unusualConnection, let link = SignedMediaRequest(target: head.target),
            MediaController.isID(link.eventID), MediaController.isID(link.photoID)
        else { return nil }
        let now = clock.now
        guard signer.check(eventID: link.eventID, photoID: link.photoID, until: link.until, signature: link.signature, now: now) == .valid,
            let bytes = blobs.cached(key: BlobKey.media(link.file, link.eventID, link.photoID))
        else { return nil }

        let eTag = MediaController.eTag(photoID: link.photoID, file: link.file)
        let unchanged = head.ifNoneMatch == eTag
        // Piece by piece: building the lines as interpolated strings first cost as much again.
        var out = allocator.buffer(capacity: 512)
        for piece in [
            unchanged ? "HTTP/1.1 304 Not Modified\r\nContent-Type: " : "HTTP/1.1 200 OK\r\nContent-Type: ",
            MediaController.contentType, "\r\nETag: ", eTag, "\r\nCache-Control: ",
            MediaController.cacheControl(until: link.until, now: now), "\r\n", Self.commonLines, "Date: ", httpDate(), "\r\n",
        ] {
            out.writeString(piece)
        }
        if !unchanged {
            out.writeString("Content-Length: ")
            out.writeString(String(bytes.readableBytes))
            out.writeString("\r\n")
        }
        out.writeString("\r\n")
        Metric.fastPathAnswer()
        requestLog.record(
            method: "GET", path: "/api/v1/media/\(link.eventID)/\(link.photoID)/\(link.file.rawValue)", status: unchanged ? 304 : 200, inFront: true)
        return (out, unchanged ? nil : bytes)
    }

    /// The headers every response carries, and the server's name, as HTTP/1.1 lines.
    private static let commonLines =
        (SecurityHeadersMiddleware<AppRequestContext>.commonHeaders + [HTTPField(name: .server, value: serverName)])
        .map { "\($0.name.rawName): \($0.value)\r\n" }.joined()

    /// The wall clock's, like the router's (not the services' clock, which tests move).
    private func httpDate() -> String {
        let now = Date()
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        if second != date.second { date = (second, now.httpDate) }
        return date.text
    }
}
