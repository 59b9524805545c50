import Foundation

// The few texts nearly every response writes, formatted by hand: Foundation's formatters cost tens of
// microseconds a call (a DateFormatter made for each Last-Modified was a sixth of a thumbnail request).

extension Date {
    /// RFC 3339 with milliseconds in UTC (`2026-06-20T18:30:00.123Z`), the format of every time in the API.
    /// Rounded to the nearest millisecond, like stored times: Foundation's ISO 8601 style truncates the binary
    /// fraction and wrote some of them as the millisecond before.
    var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        UTCTime(millisecondsSince1970: millisecondsSince1970).appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The HTTP date format of RFC 9110 (`Sat, 20 Jun 2026 18:30:00 GMT`), in whole seconds.
    var httpDate: String {
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

/// A moment split into UTC calendar fields (proleptic Gregorian), by Howard Hinnant's `civil_from_days`.
struct UTCTime {
    let year, month, day, hour, minute, second, millisecond: Int
    /// 0 = Sunday.
    let weekday: Int

    init(millisecondsSince1970 milliseconds: Int64) {
        let msPerDay: Int64 = 86_400_000
        let days = Int(milliseconds >= 0 ? milliseconds / msPerDay : (milliseconds - msPerDay + 1) / msPerDay)
        let inDay = Int(milliseconds - Int64(days) * msPerDay)
        (hour, minute, second, millisecond) = (inDay / 3_600_000, inDay / 60_000 % 60, inDay / 1000 % 60, inDay % 1000)
        weekday = ((days + 4) % 7 + 7) % 7  // 1970-01-01 was a Thursday
        let shifted = days + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// `2026-06-20T18:30:00.123Z` (years 0–9999).
    func appendRFC3339(to bytes: inout [UInt8]) {
        for (value, width, separator) in [(year, 4, "-"), (month, 2, "-"), (day, 2, "T"), (hour, 2, ":"), (minute, 2, ":"),
                                          (second, 2, "."), (millisecond, 3, "Z")] as [(Int, Int, Unicode.Scalar)] {
            Self.append(value, digits: width, to: &bytes)
            bytes.append(UInt8(ascii: separator))
        }
    }

    /// `value` with leading zeros to `width` digits.
    static func append(_ value: Int, digits width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}

extension Sequence<UInt8> {
    /// Lowercase hexadecimal, two digits a byte (digests, random ids).
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in self { bytes += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from lowercase or uppercase hexadecimal; nil for anything else.
    init?(hex: String) {
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
