import DisposableCore
import DisposablePlatform
import Foundation

/// Deleting an event asks for its name typed again, so that a slip of the finger cannot delete a wedding. What a
/// person types is compared leniently: case, the apostrophes and quotes a phone's keyboard puts in ("Emma & Leo’s"
/// for "Emma & Leo's"), spaces, and how accented letters are encoded do not matter; the letters do.
package enum DeletionConfirmation {
    package static func matches(typed: String?, name: String) -> Bool {
        guard let typed else { return false }
        let folded = canonical(typed)
        return !folded.isEmpty && folded == canonical(name)
    }

    package static func canonical(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for scalar in text.precomposedStringWithCanonicalMapping.lowercased().unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            switch scalar {
            case "\u{2018}", "\u{2019}", "\u{201A}", "\u{201B}", "\u{2032}", "\u{02BC}", "\u{00B4}", "`": out.append("'")
            case "\u{201C}", "\u{201D}", "\u{201E}", "\u{201F}", "\u{2033}", "\u{00AB}", "\u{00BB}": out.append("\"")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
