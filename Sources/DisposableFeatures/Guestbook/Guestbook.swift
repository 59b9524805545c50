import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// The guestbook's rules of thumb (SOC-1, SOC-2): how much text, how many free posts, how fast.
package enum Guestbook {
    /// A guestbook message: a few sentences.
    package static let maxNote = 500
    /// Notes and drawings that take no shot, per person and event: plenty for a guestbook, not a flood.
    package static let postsPerGuest = 200

    package static let postLimitReached = Problem(
        .forbidden, "post-limit-reached", title: "The guestbook is full for you",
        detail: "You have posted \(postsPerGuest) notes or drawings in this event, the most one person can.")

    /// Words people write for others to read: trimmed, not empty, at most `max` characters, no control or
    /// invisible formatting characters (a right-to-left override would make "gpj.exe" read "exe.jpg"), line breaks
    /// only where `lines` allows them. Kept as typed otherwise, and escaped wherever shown.
    package static func text(_ raw: String, field: String, max: Int, lines: Bool, what: String) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw Problem.invalidField(field, "Please write something: \(what) cannot be empty.") }
        guard text.count <= max else { throw Problem.invalidField(field, "\(what.capitalizedFirst) can be at most \(max) characters long.") }
        guard !text.unicodeScalars.contains(where: { isRefused($0, lines: lines) }) else {
            throw Problem.invalidField(
                field,
                lines
                    ? "\(what.capitalizedFirst) cannot contain control characters."
                    : "\(what.capitalizedFirst) is one line of text, without control characters.")
        }
        return text
    }

    private static func isRefused(_ scalar: Unicode.Scalar, lines: Bool) -> Bool {
        if lines && scalar == "\n" { return false }
        switch scalar.properties.generalCategory {
        case .control: return true
        // Zero-width (non-)joiners belong to emoji sequences and several scripts.
        case .format: return scalar != "\u{200C}" && scalar != "\u{200D}"
        case .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
