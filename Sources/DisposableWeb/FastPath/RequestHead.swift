/// A complete HTTP/1.x request head, read strictly (RFC 9112), for `RequestShortcut`: it must see the same
/// request boundaries as the HTTP decoder behind it. Anything a strict reader would not accept, or that
/// frames a body other than by `Content-Length` (chunked, upgrades, CONNECT), gives nil, and the connection
/// is then left entirely to the decoder.
import DisposableCore
import DisposableFeatures
import DisposablePlatform

package struct RequestHead {
    package let isGet: Bool
    package let isHTTP11: Bool
    /// Requests without one are handed on, for the router to refuse.
    package let hasHost: Bool
    /// The request target as sent (`/path?query`).
    package let target: String
    /// Body bytes that follow the head.
    package let contentLength: Int
    /// A `Connection` header other than `keep-alive` was sent (close, or a hop-by-hop list).
    package let unusualConnection: Bool
    package let ifNoneMatch: String?

    /// Where the head ends (just after its blank line) in `bytes`, if it is complete. Only a CRLFCRLF starting
    /// at `start` or later is looked for (what came before was searched already).
    package static func end(in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        var index = start + 3
        while index < bytes.count {
            if bytes[index] == lf, bytes[index - 1] == cr, bytes[index - 2] == lf, bytes[index - 3] == cr { return index + 1 }
            index += 1
        }
        return nil
    }

    /// Reads `bytes`, a whole head ending in its blank line; nil when it is anything but plain.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> RequestHead? {
        var lines = Lines(bytes: bytes)
        guard let requestLine = lines.next(), let firstSpace = requestLine.firstIndex(of: space),
            let lastSpace = requestLine.lastIndex(of: space), firstSpace < lastSpace
        else { return nil }
        let method = requestLine[requestLine.startIndex..<firstSpace]
        let target = requestLine[(firstSpace + 1)..<lastSpace]
        let version = requestLine[(lastSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(isTokenByte), !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            !method.elementsEqual("CONNECT".utf8)
        else { return nil }
        let isHTTP11 = version.elementsEqual("HTTP/1.1".utf8)
        guard isHTTP11 || version.elementsEqual("HTTP/1.0".utf8) else { return nil }

        var contentLength: Int?
        var unusualConnection = false
        var ifNoneMatch: String?
        var hasHost = false
        while let line = lines.next() {
            if line.isEmpty { break }  // the blank line
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = line[line.startIndex..<colon]
            var value = line[(colon + 1)...]
            while let first = value.first, first == space || first == tab { value = value.dropFirst() }
            while let last = value.last, last == space || last == tab { value = value.dropLast() }
            guard !name.isEmpty, name.allSatisfy(isTokenByte), value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == tab }) else { return nil }
            if name.equalsIgnoringCase("content-length".utf8) {
                guard contentLength == nil, let length = value.asciiDecimal else { return nil }
                contentLength = Int(length)
            } else if name.equalsIgnoringCase("transfer-encoding".utf8) || name.equalsIgnoringCase("upgrade".utf8) {
                return nil
            } else if name.equalsIgnoringCase("connection".utf8) {
                unusualConnection = unusualConnection || !value.equalsIgnoringCase("keep-alive".utf8)
            } else if name.equalsIgnoringCase("host".utf8) {
                hasHost = !value.isEmpty
            } else if name.equalsIgnoringCase("if-none-match".utf8) {
                ifNoneMatch = String(decoding: value, as: UTF8.self)
            }
        }
        guard lines.isAtEnd else { return nil }
        return RequestHead(
            isGet: method.elementsEqual("GET".utf8), isHTTP11: isHTTP11, hasHost: hasHost, target: String(decoding: target, as: UTF8.self),
            contentLength: contentLength ?? 0, unusualConnection: unusualConnection, ifNoneMatch: ifNoneMatch)
    }

    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// The head's lines without their CRLF. A CR or LF anywhere else, or a line folded onto the previous one
    /// (starting with a space or tab), ends the reading: `next` gives nil and `isAtEnd` stays false.
    private struct Lines {
        let bytes: UnsafeRawBufferPointer
        var position = 0
        var failed = false

        var isAtEnd: Bool { !failed && position == bytes.count }

        mutating func next() -> Slice<UnsafeRawBufferPointer>? {
            guard !failed, position < bytes.count else { return nil }
            var index = position
            while index < bytes.count, bytes[index] != cr, bytes[index] != lf { index += 1 }
            guard index + 1 < bytes.count, bytes[index] == cr, bytes[index + 1] == lf,
                index == position || (bytes[position] != space && bytes[position] != tab)
            else {
                failed = true
                return nil
            }
            defer { position = index + 2 }
            return bytes[position..<index]
        }
    }
}
