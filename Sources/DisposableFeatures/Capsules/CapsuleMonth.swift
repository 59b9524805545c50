import DisposableCore
import DisposablePlatform
import Foundation

/// A calendar month, `yyyy-mm`, as capsules name them.
///
/// Two clocks meet here. Which photos belong to a month is read from their own dates, which are the wall-clock
/// time where they were taken (EXIF, kept as if it were UTC, like the library's timeline): a photo taken at 23:30
/// on 31 October in Auckland is October's. When a month is over is read in the owner's time zone: October's capsule
/// comes out at midnight on 1 November where they live.
package struct CapsuleMonth: Sendable, Hashable, Comparable {
    package let year: Int
    package let month: Int

    package init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// Exactly `yyyy-mm`, 1970-01 to 9999-12.
    package init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 7, parts.count == 2, parts[0].count == 4, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), (1970...9999).contains(year), (1...12).contains(month)
        else { return nil }
        self.init(year: year, month: month)
    }

    /// The month `date` falls in, in `zone`.
    package init(containing date: Date, in zone: TimeZone) {
        let parts = Self.calendar(zone).dateComponents([.year, .month], from: date)
        self.init(year: parts.year!, month: parts.month!)
    }

    package var text: String { String(format: "%04d-%02d", year, month) }
    package var previous: CapsuleMonth { month == 1 ? .init(year: year - 1, month: 12) : .init(year: year, month: month - 1) }
    package var next: CapsuleMonth { month == 12 ? .init(year: year + 1, month: 1) : .init(year: year, month: month + 1) }

    /// Midnight on its first day in `zone`.
    package func start(in zone: TimeZone) -> Date {
        Self.calendar(zone).date(from: DateComponents(year: year, month: month, day: 1))!
    }

    /// Its photos' dates: from its first day to the next month's, on the photos' own clock.
    package var photoDates: Range<Date> { start(in: .gmt)..<next.start(in: .gmt) }

    package static func < (a: CapsuleMonth, b: CapsuleMonth) -> Bool { (a.year, a.month) < (b.year, b.month) }

    private static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
