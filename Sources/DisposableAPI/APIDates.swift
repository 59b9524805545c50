import Foundation

// Every time in the API is RFC 3339 in UTC with milliseconds (`2026-06-20T18:30:00.123Z`), written by hand:
// Foundation's formatters cost tens of microseconds a call and truncate the binary fraction.

extension Date {
    /// Times are integer milliseconds since 1970, stored and sent. Rounded to the nearest: a time read back
    /// must give the same milliseconds again (rounding down turned some into the millisecond before).
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millisecondsSince1970 ms: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(ms) / 1000)
    }

    /// RFC 3339 with milliseconds in UTC, the format of every time in the API.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        UTCTime(millisecondsSince1970: millisecondsSince1970).appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An RFC 3339 time with or without a fraction, to the millisecond; nil when it is not one.
    public init?(rfc3339 text: String) {
        for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
            if let date = try? style.parse(text) {
                self.init(millisecondsSince1970: date.millisecondsSince1970)
                return
            }
        }
        return nil
    }
}

/// A moment split into UTC calendar fields (proleptic Gregorian), by Howard Hinnant's `civil_from_days`.
public struct UTCTime: Sendable {
    public let year, month, day, hour, minute, second, millisecond: Int
    /// 0 = Sunday.
    public let weekday: Int

    public init(millisecondsSince1970 milliseconds: Int64) {
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
    public func appendRFC3339(to bytes: inout [UInt8]) {
        for (value, width, separator) in [
            (year, 4, "-"), (month, 2, "-"), (day, 2, "T"), (hour, 2, ":"), (minute, 2, ":"),
            (second, 2, "."), (millisecond, 3, "Z"),
        ] as [(Int, Int, Unicode.Scalar)] {
            Self.append(value, digits: width, to: &bytes)
            bytes.append(UInt8(ascii: separator))
        }
    }

    /// `value` with leading zeros to `width` digits.
    public static func append(_ value: Int, digits width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}

extension JSONEncoder {
    /// The API's one encoding: keys sorted, slashes as they are, times in RFC 3339 with milliseconds.
    public static let sorted: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.rfc3339)
        }
        return encoder
    }()
}

extension JSONDecoder {
    /// Reads what `JSONEncoder.sorted` writes (and RFC 3339 times without a fraction).
    public static var api: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Date(rfc3339: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "“\(text)” is not an RFC 3339 time.")
            }
            return date
        }
        return decoder
    }
}
