import DisposableAPI
import DisposableCore
import Foundation
import Hummingbird
import NIOCore

/// JSON written by hand for the hottest responses (gallery pages). Foundation's JSONEncoder spent about 4 ms
/// of CPU on a page of 50 photos here; this writes the very same bytes as `JSONEncoder.sorted` — the caller
/// writes keys in sorted order and leaves out nil values, and a test compares the two outputs.
package struct JSONText {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next key or value needs a comma before it.
    private var needsComma = false

    package init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    package mutating func object(_ body: (inout JSONText) throws -> Void) rethrows {
        open(UInt8(ascii: "{"))
        try body(&self)
        close(UInt8(ascii: "}"))
    }

    package mutating func array<S: Sequence>(_ elements: S, _ write: (S.Element, inout JSONText) throws -> Void) rethrows {
        open(UInt8(ascii: "["))
        for element in elements { try write(element, &self) }
        close(UInt8(ascii: "]"))
    }

    /// `"name":` — the value written next belongs to it.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes += [UInt8(ascii: "\""), UInt8(ascii: ":")]
        needsComma = false
    }

    package mutating func value(_ string: String) {
        separate()
        appendEscaped(string)
        needsComma = true
    }

    package mutating func value(_ number: some BinaryInteger) { literal(String(number)) }
    package mutating func value(_ flag: Bool) { literal(flag ? "true" : "false") }
    package mutating func value(_ date: Date) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        UTCTime(millisecondsSince1970: date.millisecondsSince1970).appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A value written before, as it is.
    package mutating func written(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// A key and its value, or nothing at all when the value is nil (as `encodeIfPresent` does).
    package mutating func field(_ name: StaticString, _ value: String?) { if let value { key(name); self.value(value) } }
    package mutating func field(_ name: StaticString, _ value: (some BinaryInteger)?) { if let value { key(name); self.value(value) } }
    package mutating func field(_ name: StaticString, _ value: Bool) { key(name); self.value(value) }
    package mutating func field(_ name: StaticString, _ value: Bool?) { if let value { key(name); self.value(value) } }
    package mutating func field(_ name: StaticString, _ value: Date?) { if let value { key(name); self.value(value) } }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func literal(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// Quotes and escapes like Foundation with `.withoutEscapingSlashes`: `"` and `\`, the short forms of
    /// \b \f \n \r \t, `\u00XX` for other control characters; everything else as UTF-8.
    private mutating func appendEscaped(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (ids, names, URLs) need no escaping at all: checked and copied in one go, on the
        // string's own contiguous bytes (the generic UTF-8 view walk cost 5 % of a gallery page).
        var text = string
        let copied = text.withUTF8 { utf8 in
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A JSON response written with `JSONText`, with the same headers as `jsonResponse`.
package func jsonResponse(_ text: JSONText, status: HTTPResponse.Status = .ok) -> Response {
    jsonResponse(ByteBuffer(bytes: text.bytes), status: status)
}

/// A response with JSON already written.
package func jsonResponse(_ json: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"], body: .init(byteBuffer: json))
}
