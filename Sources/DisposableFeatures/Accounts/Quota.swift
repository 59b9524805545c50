import DisposableCore
import DisposablePlatform
import Foundation

/// An account's storage quota (ADM-5, P-I-260): the originals of every photo in the events it organizes, and of
/// every asset in its own library (trash included), count against it. Like `ShotLimit`, it is checked before an
/// upload is read (a quick refusal) and charged for good by a guarded UPDATE in the transaction that records the
/// photo (`UserRepository.charge`), so parallel uploads near the limit can never take the account past it.
/// Removing a photo gives its bytes back in the transaction that removes the row.
package enum Quota {
    /// 50 GB, the seed's default, until the admin sets another (`instance_settings.default_quota_bytes`).
    package static let builtInDefault: Int64 = 50_000_000_000

    /// What an account uses and may use.
    package struct Usage: Sendable, Equatable {
        package let used: Int64
        package let allowed: Int64
        /// The quota set on the account itself; nil when it follows the instance's default.
        package let own: Int64?

        /// Whether `bytes` more still fit.
        package func fits(_ bytes: Int64) -> Bool { used + bytes <= allowed }
        /// At or above 90 %: the dashboard warns.
        package var nearlyFull: Bool { allowed > 0 && used * 10 >= allowed * 9 }

        package init(used: Int64, allowed: Int64, own: Int64?) {
            self.used = used
            self.allowed = allowed
            self.own = own
        }
    }

    /// The refusal: for the organizer, their own numbers; for a guest, whom to ask.
    package static func exceeded(_ usage: Usage, byOrganizer: Bool) -> Problem {
        let numbers = "\(format(usage.used)) of the \(format(usage.allowed)) allowed are used"
        return Problem(
            .forbidden, "quota-exceeded", title: "Storage quota reached",
            detail: byOrganizer
                ? "Your storage is full: \(numbers). Delete photos or events, or ask the admin for a larger quota."
                : "This event's storage is full — ask the organizer (\(numbers)).")
    }

    /// "1.2 GB", "350 MB", "12 KB": decimal units, as phones and disks count. French writes "1,2 Go".
    package static func format(_ bytes: Int64, french: Bool = false) -> String {
        let units: [(Int64, String, String)] = [
            (1_000_000_000_000, "TB", "To"), (1_000_000_000, "GB", "Go"), (1_000_000, "MB", "Mo"), (1_000, "KB", "Ko"),
        ]
        for (size, unit, frenchUnit) in units where bytes >= size {
            let value = Double(bytes) / Double(size)
            let number = value >= 100 || value == value.rounded() ? "\(Int(value.rounded()))" : String(format: "%.1f", value)
            return french ? number.replacingOccurrences(of: ".", with: ",") + "\u{a0}" + frenchUnit : "\(number) \(unit)"
        }
        return french ? "\(bytes)\u{a0}octets" : "\(bytes) bytes"
    }
}
