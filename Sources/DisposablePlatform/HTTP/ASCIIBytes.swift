/// Small readings of ASCII bytes shared by the parsers that work below `String` (request heads, signed links,
/// bearer tokens): going through `String` and Foundation there was a measurable part of each request.
import DisposableCore

extension Collection<UInt8> {
    /// 1 to 18 decimal digits and nothing else (no sign, no spaces).
    package var asciiDecimal: Int64? {
        guard (1...18).contains(count) else { return nil }
        var value: Int64 = 0
        for digit in self {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// Whether these bytes start with `lowercase`, ASCII letters compared in any case.
    package func hasPrefixIgnoringCase(_ lowercase: String.UTF8View) -> Bool {
        count >= lowercase.count && zip(self, lowercase).allSatisfy { ($0 >= 65 && $0 <= 90 ? $0 + 32 : $0) == $1 }
    }

    /// Whether these bytes are `lowercase`, ASCII letters compared in any case.
    package func equalsIgnoringCase(_ lowercase: String.UTF8View) -> Bool {
        count == lowercase.count && hasPrefixIgnoringCase(lowercase)
    }
}
