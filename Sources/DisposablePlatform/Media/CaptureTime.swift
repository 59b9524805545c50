import DisposableCore
import Foundation

/// When a photo was taken, as its EXIF says: an instant when the camera wrote its offset from
/// UTC (`OffsetTimeOriginal`, "+02:00"), else a wall-clock time — "floating" — that a time zone turns into one.
public struct CaptureTime: Sendable, Equatable {
    /// The wall-clock time, read as if it were UTC.
    package let wallClock: Date
    /// Seconds east of UTC, when the file says.
    package let offset: Int?

    /// A moment known exactly (a video's recording date).
    package init(instant: Date) { (wallClock, offset) = (instant, 0) }

    /// `YYYY:MM:DD HH:MM:SS`, optionally followed by `±HH:MM`.
    package init?(exif text: String) {
        let characters = Array(text)
        guard characters.count >= 19 else { return nil }
        let parts = String(characters[0..<19]).split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard parts.count == 6, parts[0] > 1900 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        (components.hour, components.minute, components.second) = (parts[3], parts[4], parts[5])
        guard let wallClock = Self.utc.date(from: components) else { return nil }
        self.wallClock = wallClock
        offset = characters.count >= 25 ? Self.offset(String(characters[19..<25])) : nil
    }

    /// The moment it was taken: exact when the file gave its offset; otherwise the wall clock in `zone` (the
    /// owner's time zone, or UTC when none is known — the time then shows as the camera's clock read).
    package func instant(floatingIn zone: TimeZone) -> Date {
        if let offset { return wallClock - TimeInterval(offset) }
        // The zone's offset at that moment: guessed from the wall clock, then taken at the guess (exact but for
        // the hour a clock change repeats or skips).
        let guess = wallClock - TimeInterval(zone.secondsFromGMT(for: wallClock))
        return wallClock - TimeInterval(zone.secondsFromGMT(for: guess))
    }

    private static func offset(_ text: String) -> Int? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().split(separator: ":").compactMap { Int($0) }
        guard digits.count == 2, digits[0] <= 14, digits[1] < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (digits[0] * 3600 + digits[1] * 60)
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
