import DisposableCore
import Foundation
import Hummingbird
import NIOCore

/// A stored file served whole or by one `bytes=` range, the way players and download managers resume: its ETag,
/// 304 for a matching If-None-Match, If-Range honoured, 416 for a range outside it, and the body paced to the
/// reader (`PacedWriter`). The photo originals and videos, and the library's originals and motions, go through it.
package enum RangedBody {
    /// `total` bytes, of which `stream` writes the requested range (offsets within those bytes). `prepare`, and a
    /// read of the range's first byte, run before the answer starts, so what can fail early (storage out of reach, a
    /// damaged file) is an error, not a broken download.
    package static func response(
        _ request: Request, _ context: some ClientRequestContext, total: Int64, etag: String, headers fields: HTTPFields,
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
            switch ByteRange.parse(header, size: total) {
            case .invalid:
                break
            case .unsatisfiable:
                // The answer has no body: it must not claim to be the file's type (nor offer it as a download).
                headers[.contentRange] = "bytes */\(total)"
                headers[.contentType] = nil
                headers[.contentDisposition] = nil
                return Response(status: .rangeNotSatisfiable, headers: headers)
            case .range(let parsed):
                partial = parsed
                headers[.contentRange] = "bytes \(parsed.lowerBound)-\(parsed.upperBound)/\(total)"
            }
        }
        let requested = partial ?? (total > 0 ? 0...(total - 1) : nil)
        let length = requested.map { $0.upperBound - $0.lowerBound + 1 } ?? 0
        try await prepare()
        // The first byte read before the answer starts: a stored file that does not open (sealed, then changed or cut)
        // is then a clear error, not a 200 cut off after its headers.
        if let first = requested?.lowerBound { try await stream(first...first) { _ in } }
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

/// A single `bytes=` range (the only kind browsers and download managers send for resuming), read as RFC 9110 §14
/// says: a header that is not a valid range is ignored (the whole file), a last position past the end is the end,
/// and only a range that starts past the end (or an empty suffix, or any range of an empty file) is unsatisfiable.
package enum ByteRange: Equatable {
    case range(ClosedRange<Int64>)
    case unsatisfiable
    case invalid

    package static func parse(_ header: String, size: Int64) -> ByteRange {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return .invalid }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
            .split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return .invalid }
        let (first, last) = (spec[0], spec[1])
        switch (position(first), position(last)) {
        case (let start?, let end?):
            guard start <= end else { return .invalid }
            return start < size ? .range(start...min(end, size - 1)) : .unsatisfiable
        case (let start?, nil) where last.isEmpty:
            return start < size ? .range(start...(size - 1)) : .unsatisfiable
        case (nil, let suffix?) where first.isEmpty:
            return suffix > 0 && size > 0 ? .range(max(0, size - suffix)...(size - 1)) : .unsatisfiable
        default:
            return .invalid
        }
    }

    /// Digits only; a number too long for 64 bits is as good as the largest one (it is past any file's end).
    private static func position(_ digits: Substring) -> Int64? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(digits) ?? .max
    }
}
