import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// What a notice says — in the bell, in the API (`message`, `link`) and on a phone's lock screen — in the reader's
/// language: its sentence (`js_notice_*` of the catalogues), the event or the app as the title, and the page it
/// opens. Worded only here: `Static/bell.js` shows what it is given.
package enum NoticeWords {
    /// Who reads: their language (the one chosen on the pages, else the browser's) and the zone times are told in
    /// (the account's, else the browser's as the pages' script keeps it, else UTC).
    package struct Reader: Sendable {
        package let language: WebLanguage
        package let zone: TimeZone

        package init(language: WebLanguage, zone: TimeZone) {
            self.language = language
            self.zone = zone
        }
    }

    package struct Words: Codable, Equatable {
        package let title: String
        package let body: String
        /// The page a tap opens (same-origin path).
        package let url: String
        /// One notice replaces another of the same tag on the phone.
        package let tag: String
    }

    package static func words(_ notice: NotificationJSON, language: WebLanguage, zone: TimeZone) -> Words {
        let strings = Catalogues.shared[language] ?? [:]
        func t(_ key: String, _ values: [String: String]) -> String {
            var text = strings["js_\(key)"] ?? key
            for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
            return text
        }
        let values = ["name": notice.actorName ?? "", "event": notice.eventName ?? "", "text": notice.text ?? ""]
        let body: String =
            switch notice.kind {
            case .liked: t("notice_liked", values)
            case .commented: t("notice_commented", values)
            case .revealed: t("notice_revealed", values)
            case .endingSoon: t("notice_ending", values.merging(["date": date(notice.deletesAt, language, zone)]) { $1 })
            case .recap: t("notice_recap", values)
            case .capsule: t("notice_capsule", ["month": month(notice.period, language)])
            case .momentsRecap: t("notice_moments_recap", ["year": notice.period ?? ""])
            case .friendRequest: t("notice_friend_request", values)
            case .friendAccepted: t("notice_friend_accepted", values)
            case .capsuleShared: t("notice_capsule_shared", values)
            case .capsuleReaction: t("notice_capsule_reaction", values)
            case .capsuleComment: t("notice_capsule_comment", values)
            }
        return Words(title: notice.eventName ?? "Disposable", body: body, url: url(notice), tag: notice.id)
    }

    /// The page the bell links to for the notice.
    package static func url(_ notice: NotificationJSON) -> String {
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? "" }
        switch notice.kind {
        case .capsule: return "/capsules/\(escape(notice.period ?? ""))"
        case .momentsRecap: return "/moments?year=\(escape(notice.period ?? ""))"
        case .friendRequest, .friendAccepted: return "/friends"
        case .capsuleShared, .capsuleReaction, .capsuleComment: return "/board"
        default:
            let page = "/e/\(escape(notice.eventCode ?? ""))" + (notice.kind == .recap ? "/recap" : "")
            return page + (notice.photoId.map { "#post=\(escape($0))" } ?? "")
        }
    }

    private static func date(_ date: Date?, _ language: WebLanguage, _ zone: TimeZone) -> String {
        guard let date else { return "" }
        return date.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened, locale: language.locale, timeZone: zone))
    }

    /// "October 2026", "octobre 2026".
    private static func month(_ period: String?, _ language: WebLanguage) -> String {
        guard let period, let month = CapsuleMonth(period) else { return period ?? "" }
        let style = Date.FormatStyle(locale: language.locale, timeZone: .gmt).month(.wide).year()
        return month.start(in: .gmt).formatted(style)
    }
}
