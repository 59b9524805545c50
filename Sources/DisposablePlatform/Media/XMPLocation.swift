/// Where XMP text keeps a location: any property whose name speaks of GPS, latitude, longitude or altitude
/// (`exif:GPSLatitude`, `drone-dji:GpsLongitude`…), as an attribute or as an element. Each is overwritten
/// with spaces, which XML reads as the blanks between attributes or elements.
///
/// Only UTF-8 text whose every mention of those words falls inside what is blanked counts as cleaned for
/// certain. Anything else — UTF-16 or UTF-32 text, an element named without a prefix under a default namespace
/// (`<GPSLatitude>`), a word the walk could not place — makes the caller blank the whole block.
import DisposableCore

package enum XMPLocation {
    private static let words: [[UInt8]] = ["gps", "latitude", "longitude", "altitude"].map { Array($0.utf8) }

    /// Byte ranges of `text` to blank; nil when a location property cannot be delimited for certain (then the
    /// caller blanks the whole block).
    package static func ranges(in text: [UInt8]) -> [Range<Int>]? {
        // UTF-16 and UTF-32 (which XMP allows) have NUL bytes between the letters of ASCII words.
        guard !text.contains(0), !text.starts(with: [0xFE, 0xFF]), !text.starts(with: [0xFF, 0xFE]) else { return nil }
        guard let ranges = qualifiedRanges(in: text) else { return nil }
        // Every mention must be inside what is blanked: a property the walk did not recognise stays otherwise.
        let lower = text.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        for index in lower.indices where words.contains(where: { matches(lower, $0, at: index) }) {
            guard ranges.contains(where: { $0.contains(index) }) else { return nil }
        }
        return ranges
    }

    private static func qualifiedRanges(in text: [UInt8]) -> [Range<Int>]? {
        let lower = text.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        var ranges: [Range<Int>] = []
        var index = 0
        while index < lower.count {
            guard let word = words.first(where: { matches(lower, $0, at: index) }) else {
                index += 1
                continue
            }
            var start = index
            var end = index + word.count
            while start > 0, isNameByte(text[start - 1]) { start -= 1 }
            while end < text.count, isNameByte(text[end]) { end += 1 }
            index = end
            let name = Array(text[start..<end])
            // Only qualified names are properties; a word in a value or in free text is not.
            guard name.contains(UInt8(ascii: ":")), !ranges.contains(where: { $0.contains(start) }) else { continue }
            if start >= 1, text[start - 1] == UInt8(ascii: "<") {
                guard let close = elementEnd(text, name: name, openAt: start - 1, nameEnd: end) else { return nil }
                ranges.append((start - 1)..<close)
            } else if start >= 2, text[start - 1] == UInt8(ascii: "/"), text[start - 2] == UInt8(ascii: "<") {
                continue  // a closing tag, blanked with its element
            } else if let valueEnd = attributeEnd(text, nameEnd: end) {
                ranges.append(start..<valueEnd)
            } else if start >= 1, isSpace(text[start - 1]) {
                // A qualified name standing where attributes stand, but no value follows: do not guess.
                var after = end
                while after < text.count, isSpace(text[after]) { after += 1 }
                if after < text.count, text[after] == UInt8(ascii: "=") { return nil }
            }
        }
        return ranges
    }

    private static func matches(_ text: [UInt8], _ word: [UInt8], at index: Int) -> Bool {
        guard index + word.count <= text.count else { return false }
        for offset in 0..<word.count where text[index + offset] != word[offset] { return false }
        return true
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// `name = "value"` or `name='value'`: the index after the closing quote.
    private static func attributeEnd(_ text: [UInt8], nameEnd: Int) -> Int? {
        var index = nameEnd
        while index < text.count, isSpace(text[index]) { index += 1 }
        guard index < text.count, text[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        while index < text.count, isSpace(text[index]) { index += 1 }
        guard index < text.count, text[index] == UInt8(ascii: "\"") || text[index] == UInt8(ascii: "'") else { return nil }
        let quote = text[index]
        guard let close = text[(index + 1)...].firstIndex(of: quote) else { return nil }
        return close + 1
    }

    /// The index after `</name>` (or after `/>` for an empty element).
    private static func elementEnd(_ text: [UInt8], name: [UInt8], openAt: Int, nameEnd: Int) -> Int? {
        var index = nameEnd
        var quote: UInt8? = nil
        while index < text.count {
            let byte = text[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                if text[index - 1] == UInt8(ascii: "/") { return index + 1 }
                break
            }
            index += 1
        }
        guard index < text.count else { return nil }
        let closing = Array("</".utf8) + name + [UInt8(ascii: ">")]
        var search = index + 1
        while search + closing.count <= text.count {
            if text[search] == UInt8(ascii: "<"), Array(text[search..<(search + closing.count)]) == closing { return search + closing.count }
            search += 1
        }
        return nil
    }
}
