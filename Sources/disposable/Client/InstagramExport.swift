import Foundation

/// Instagram's "Download your information" export, in its JSON format: posts, stories and reels, each
/// media file with its date and caption. Two layouts are found in the wild — `your_instagram_activity/media/…`
/// (current) and `content/…` (older) — possibly under a folder named after the account; in both, a media entry's
/// `uri` is relative to the export's root.
struct InstagramExport {
    struct Media: Equatable {
        /// The file's path inside the source.
        let path: String
        let takenAt: Date?
        let caption: String?
    }

    /// The lists of media, by their names in either layout.
    static let listPattern = #"(^|/)(your_instagram_activity/media|content)/(posts_[0-9]+|stories|reels|igtv_videos)\.json$"#

    /// Every media file the export's lists name and the source holds, once each (a file in two lists keeps the first
    /// caption), in the lists' order; and the lists' entries whose file is missing.
    static func media(in source: any ImportSource) -> (found: [Media], missing: [String]) {
        let paths = Set(source.paths)
        var found: [Media] = []
        var missing: [String] = []
        var seen: Set<String> = []
        for list in source.paths where list.range(of: listPattern, options: .regularExpression) != nil {
            guard let data = source.contents(list, limit: 64 << 20), let json = try? JSONSerialization.jsonObject(with: data) else { continue }
            // The export's root: whatever comes before the layout's folder.
            let marker = list.range(of: "your_instagram_activity/") ?? list.range(of: "content/", options: .backwards)!
            let root = String(list[..<marker.lowerBound])
            for entry in entries(in: json, caption: nil, time: nil) {
                let path = root + entry.uri.drop { $0 == "/" }
                guard !seen.contains(path) else { continue }
                seen.insert(path)
                if paths.contains(path) {
                    found.append(Media(path: path, takenAt: entry.time.map { Date(timeIntervalSince1970: $0) }, caption: entry.caption))
                } else {
                    missing.append(path)
                }
            }
        }
        return (found, missing)
    }

    /// Each object with a `uri` anywhere in a list, with its own `title` (spaces around it trimmed) and
    /// `creation_timestamp` or, when empty, those of the object around it (a post of several photos has its caption on the post).
    private static func entries(in node: Any, caption: String?, time: Double?) -> [(uri: String, caption: String?, time: Double?)] {
        if let list = node as? [Any] { return list.flatMap { entries(in: $0, caption: caption, time: time) } }
        guard let object = node as? [String: Any] else { return [] }
        let title =
            (object["title"] as? String).map { readable($0).trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? caption
        let created = (object["creation_timestamp"] as? NSNumber)?.doubleValue ?? time
        if let uri = object["uri"] as? String, !uri.hasPrefix("http") { return [(uri, title, created)] }
        return object.keys.sorted().flatMap { entries(in: object[$0]!, caption: title, time: created) }
    }

    /// Instagram writes each byte of a text's UTF-8 as a character of its own (`\u00c3\u00a9` for "é"): read back,
    /// the bytes make the text. A text that is not of that kind (a character past U+00FF, bytes that are no UTF-8) is
    /// kept as it is.
    static func readable(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return text }
            bytes.append(UInt8(scalar.value))
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }
}
