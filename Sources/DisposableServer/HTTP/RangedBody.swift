import Foundation
import Hummingbird
import NIOCore

/// A stored file served whole or by one `bytes=` range, the way players and download managers resume: its ETag,
/// 304 for a matching If-None-Match, If-Range honoured, 416 for a range outside it, and the body paced to the
/// reader (`PacedWriter`). The photo originals and videos, and the library's originals and motions, go through it.
enum RangedBody {
    /// `total` bytes, of which `stream` writes the requested range (offsets within those bytes). `prepare` runs
    /// before the answer starts, so what can fail early (storage out of reach) is an error, not a broken download.
    static func response(
        _ request: Request, _ context: AppRequestContext, total: Int64, etag: String, headers fields: HTTPFields,
        prepare: () async throws -> Void = {},
        stream: @escaping @Sendable (ClosedRange<Int64>, _ write: (ByteBuffer) async throws -> Void) async throws -> Void
    ) async throws -> Response {
        var headers = fields
        headers[.eTag] = etag
        headers[.acceptRanges] = "bytes"
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        var partial: ClosedRange<Int64>? = nil
        // Several ranges at once (`bytes=0-1,5-6`) are answered whole, as RFC 9110 §14.2 allows: no reader resumes so.
        if let header = request.headers[.range], !header.contains(","), request.headers[.ifRange].map({ $0 == etag }) ?? true {
            guard let parsed = ByteRange.parse(header, size: total) else {
                // The answer has no body: it must not claim to be the file's type (nor offer it as a download).
                headers[.contentRange] = "bytes */\(total)"
                headers[.contentType] = nil
                headers[.contentDisposition] = nil
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            partial = parsed
            headers[.contentRange] = "bytes \(parsed.lowerBound)-\(parsed.upperBound)/\(total)"
        }
        let requested = partial ?? (total > 0 ? 0...(total - 1) : nil)
        let length = requested.map { $0.upperBound - $0.lowerBound + 1 } ?? 0
        try await prepare()
        let eventLoop = context.eventLoop
        return Response(
            status: partial == nil ? .ok : .partialContent, headers: headers,
            body: ResponseBody(contentLength: Int(length)) { writer in
                var paced = PacedWriter(writer: writer, eventLoop: eventLoop)
                if let requested { try await stream(requested) { try await paced.write($0) } }
                try await paced.writer.finish(nil)
            })
    }
}

/// A single `bytes=` range (the only kind browsers and download managers send for resuming).
enum ByteRange {
    static func parse(_ header: String, size: Int64) -> ClosedRange<Int64>? {
        guard size > 0, header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        switch (Int64(spec[0]), Int64(spec[1])) {
        case (let start?, let end?) where start <= end && start < size: return start...min(end, size - 1)
        case (let start?, nil) where spec[1].isEmpty && start < size: return start...(size - 1)
        case (nil, let suffix?) where spec[0].isEmpty && suffix > 0: return max(0, size - suffix)...(size - 1)
        default: return nil
        }
    }
}
