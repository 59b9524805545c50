import DisposableAPI
import DisposableCore
import Foundation

// The few texts nearly every response writes, formatted by hand: Foundation's formatters cost tens of
// microseconds a call (a DateFormatter made for each Last-Modified was a sixth of a thumbnail request).

extension Date {
    /// The HTTP date format of RFC 9110 (`Sat, 20 Jun 2026 18:30:00 GMT`), in whole seconds.
    package var httpDate: String {
        let time = UTCTime(millisecondsSince1970: millisecondsSince1970 / 1000 * 1000)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var bytes = Array((weekdays[time.weekday] + ", ").utf8)
        UTCTime.append(time.day, digits: 2, to: &bytes)
        bytes += Array(" \(months[time.month - 1]) ".utf8)
        UTCTime.append(time.year, digits: 4, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        UTCTime.append(time.hour, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        UTCTime.append(time.minute, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        UTCTime.append(time.second, digits: 2, to: &bytes)
        bytes += Array(" GMT".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Sequence<UInt8> {
    /// Lowercase hexadecimal, two digits a byte (digests, random ids).
    package var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in self { bytes += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from lowercase or uppercase hexadecimal; nil for anything else.
    package init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self = bytes
    }
}
