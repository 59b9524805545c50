import DisposableCore
import DisposablePlatform
import Foundation

/// Names inside a ZIP (the event's download, a person's export) and of the ZIP itself.
package enum ArchiveNames {
    /// Two guests called Ana both have an `Ana1.jpg`: the second becomes `Ana1 (2).jpg`.
    package static func unique(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            seen[name, default: 0] += 1
            guard let count = seen[name], count > 1 else { return name }
            let ext = (name as NSString).pathExtension
            return "\((name as NSString).deletingPathExtension) (\(count)).\(ext)"
        }
    }

    package static func archive(_ eventName: String) -> String {
        let safe = eventName.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" ? Character($0) : "_" }
        return String(String(safe).prefix(60)).trimmingCharacters(in: .whitespaces) + ".zip"
    }
}
