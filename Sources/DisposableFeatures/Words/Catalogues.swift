import DisposableCore
import Foundation

/// The product's words in each language (`Strings/en.json`, `fr.json`), English filling any gap: the pages, the
/// notices in the bell and the pushes on phones read the same catalogues.
package enum Catalogues {
    package static let shared: [WebLanguage: [String: String]] = {
        do { return try load() } catch { fatalError("The string catalogues are missing from the bundle: \(error)") }
    }()

    package static func load() throws -> [WebLanguage: [String: String]] {
        guard let root = Bundle.module.resourceURL else { throw CocoaError(.fileNoSuchFile) }
        var catalogues: [WebLanguage: [String: String]] = [:]
        for language in WebLanguage.allCases {
            let data = try Data(contentsOf: root.appendingPathComponent("Strings/\(language.rawValue).json"))
            catalogues[language] = try JSONDecoder().decode([String: String].self, from: data)
        }
        let english = catalogues[.en] ?? [:]
        for (language, strings) in catalogues { catalogues[language] = strings.merging(english) { own, _ in own } }
        return catalogues
    }
}

/// The languages of the interface (UI-1).
public enum WebLanguage: String, CaseIterable, Sendable {
    case en, fr

    package static let cookieName = "disposable_lang"

    package var locale: Locale { Locale(identifier: self == .fr ? "fr_FR" : "en_GB") }
    /// The BCP 47 tag the pages' scripts format with.
    package var scriptLocale: String { self == .fr ? "fr-FR" : "en-GB" }

    /// The language chosen with the switcher, else the browser's first supported one, else English.
    public static func of(cookie: String?, acceptLanguage: String?) -> WebLanguage {
        if let cookie, let chosen = WebLanguage(rawValue: cookie) { return chosen }
        let ranked = (acceptLanguage ?? "").split(separator: ",").compactMap { item -> (String, Double)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty else { return nil }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag.lowercased(), quality)
        }
        for (tag, _) in ranked.sorted(by: { $0.1 > $1.1 }) {
            if let language = WebLanguage(rawValue: String(tag.prefix { $0 != "-" && $0 != "_" })) { return language }
        }
        return .en
    }
}
