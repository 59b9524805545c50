import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore

/// A `multipart/form-data` body (RFC 7578) read as it streams: each part's headers, then its bytes as slices of the
/// chunks that brought them — never gathered, never copied but for the few bytes that might begin a boundary at a
/// chunk's end. The boundary is looked for with `memchr` and `memcmp`, a chunk at a time: MultipartKit's parser, tried first,
/// walked the bytes one by one and was the largest cost on the way from arrival to visible (BENCHMARKS.md).
package struct FormParser {
    package enum Event {
        case part(headers: [(name: String, value: String)])
        case bytes(ByteBuffer)
        case partEnd
    }

    package struct Malformed: Error { package init() {} }

    /// A part's headers are a few lines; more than this is not a form a browser or the SDK sends.
    package static let maxHeaderBytes = 8 * 1024

    private enum State { case preamble, afterDelimiter, headers, body, epilogue }

    private static let blankLine = Array("\r\n\r\n".utf8)

    private let delimiter: [UInt8]
    private var state = State.preamble
    /// Bytes received and not yet given out: at most a delimiter's length but for one, except while reading headers.
    private var pending = ByteBuffer()

    package init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first boundary may open the body, with no line break before it.
        pending.writeString("\r\n")
    }

    /// Whether the closing boundary has been read.
    package var isComplete: Bool { state == .epilogue }

    package mutating func feed(_ chunk: ByteBuffer, _ emit: (Event) throws -> Void) throws {
        var data: ByteBuffer
        if pending.readableBytes == 0 {
            data = chunk
        } else {
            var chunk = chunk
            pending.writeBuffer(&chunk)
            data = pending
        }
        pending = ByteBuffer()
        while data.readableBytes > 0 {
            switch state {
            case .preamble, .body:
                if let at = Self.find(delimiter, in: data) {
                    let before = data.readSlice(length: at)!
                    data.moveReaderIndex(forwardBy: delimiter.count)
                    if state == .body {
                        if before.readableBytes > 0 { try emit(.bytes(before)) }
                        try emit(.partEnd)
                    }
                    state = .afterDelimiter
                } else {
                    // Keep what could begin the delimiter; give out the rest.
                    let kept = Self.partialMatch(of: delimiter, atEndOf: data)
                    let given = data.readSlice(length: data.readableBytes - kept)!
                    if state == .body, given.readableBytes > 0 { try emit(.bytes(given)) }
                    pending = data
                    return
                }
            case .afterDelimiter:
                // "--" closes the form; otherwise optional spaces, then a line break, then a part's headers.
                let view = data.readableBytesView
                if view.starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")]) {
                    state = .epilogue
                    continue
                }
                guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
                    guard view.count < 80, view.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == UInt8(ascii: "-") }) else {
                        throw Malformed()
                    }
                    pending = data
                    return
                }
                let line = view[view.startIndex..<end]
                guard line.last == 0x0D, line.dropLast().allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { throw Malformed() }
                // The line break stays: the headers are what lies between it and the first blank line.
                data.moveReaderIndex(to: end - 1)
                state = .headers
            case .headers:
                guard let at = Self.find(Self.blankLine, in: data) else {
                    guard data.readableBytes <= Self.maxHeaderBytes else { throw Malformed() }
                    pending = data
                    return
                }
                guard at <= Self.maxHeaderBytes else { throw Malformed() }
                let block = String(decoding: data.readableBytesView.dropFirst(2).prefix(max(at - 2, 0)), as: UTF8.self)
                data.moveReaderIndex(forwardBy: at + Self.blankLine.count)
                try emit(.part(headers: try Self.headers(block)))
                state = .body
            case .epilogue:
                return
            }
        }
    }

    private static func headers(_ block: String) throws -> [(name: String, value: String)] {
        guard !block.isEmpty else { return [] }
        return try block.split(separator: "\r\n", omittingEmptySubsequences: false).map { line in
            guard let colon = line.firstIndex(of: ":") else { throw Malformed() }
            return (
                String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
    }

    /// Where `needle` first occurs in `buffer`'s readable bytes, counted from its reader index: `memchr` to each of
    /// its first byte, then `memcmp` (glibc's `memmem` is not in Swift's view of it).
    private static func find(_ needle: [UInt8], in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { haystack in
            needle.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let wanted = needle.baseAddress, haystack.count >= needle.count else { return nil }
                let last = haystack.count - needle.count
                var from = 0
                while from <= last {
                    guard let hit = memchr(base + from, Int32(needle[0]), last - from + 1) else { return nil }
                    let at = UnsafeRawPointer(hit) - base
                    if memcmp(base + at, wanted, needle.count) == 0 { return at }
                    from = at + 1
                }
                return nil
            }
        }
    }

    /// The length of the longest end of `buffer` that is a beginning of `needle` (shorter than the whole).
    private static func partialMatch(of needle: [UInt8], atEndOf buffer: ByteBuffer) -> Int {
        let view = buffer.readableBytesView
        for length in stride(from: min(needle.count - 1, view.count), to: 0, by: -1)
        where view.suffix(length).elementsEqual(needle.prefix(length)) {
            return length
        }
        return 0
    }
}
