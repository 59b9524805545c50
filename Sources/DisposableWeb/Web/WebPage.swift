import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// What every page knows about its request: language, time zone, who is asking.
package struct WebRequest: Sendable {
    package let language: WebLanguage
    package let timeZone: TimeZone
    package let identity: Identity?
    package let path: String
    package let resources: WebResources

    package init(_ request: Request, context: AppRequestContext, resources: WebResources = .shared) {
        language = WebLanguage.of(
            cookie: request.cookies[WebLanguage.cookieName]?.value,
            acceptLanguage: request.headers[.acceptLanguage])
        identity = context.identity
        // The account's zone when the person chose one; else the browser's, which the pages'
        // script writes URL-encoded (`Europe%2FParis`: read undecoded it named no zone); UTC until then.
        let browserZone = request.cookies["disposable_tz"].flatMap { TimeZone(identifier: $0.value.removingPercentEncoding ?? $0.value) }
        var accountZone: TimeZone?
        if case .user(let user, _) = context.identity { accountZone = user.timeZone.flatMap(TimeZone.init(identifier:)) }
        timeZone = accountZone ?? browserZone ?? .gmt
        path = request.uri.path
        self.resources = resources
    }

    package var strings: [String: String] { resources.catalogues[language] ?? [:] }

    package func t(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = strings[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// `key_one` where the language says `n` is singular (English: 1; French: 0 and 1), else `key`; `{n}` filled.
    package func plural(_ key: String, _ n: Int) -> String {
        let singular = language == .fr ? n < 2 : n == 1
        return t(singular && strings["\(key)_one"] != nil ? "\(key)_one" : key, ["n": String(n)])
    }

    package var user: User? {
        if case .user(let user, _) = identity { return user }
        return nil
    }

    /// "1.2 GB", "1,2 Go": a size in the reader's language.
    package func size(_ bytes: Int64) -> String { Quota.format(bytes, french: language == .fr) }

    /// "21 Nov 2026, 18:30" in the reader's language and time zone (UI-1).
    package func dateTime(_ date: Date) -> String { format(date, date: .medium, time: .short) }

    package func date(_ date: Date) -> String { format(date, date: .long, time: .none) }

    /// "26 Oct 2026" in the reader's language, in UTC (days the API counts in UTC).
    package func shortDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = language.locale
        formatter.timeZone = .gmt
        formatter.dateStyle = .medium
        formatter.timeStyle = .none
        return formatter.string(from: date)
    }

    private func format(_ date: Date, date dateStyle: DateFormatter.Style, time timeStyle: DateFormatter.Style) -> String {
        let formatter = DateFormatter()
        formatter.locale = language.locale
        formatter.timeZone = timeZone
        formatter.dateStyle = dateStyle
        formatter.timeStyle = timeStyle
        return formatter.string(from: date)
    }

    /// The value of an `<input type=datetime-local>` in the reader's time zone.
    package func localInputValue(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: date)
    }

    /// An `<input type=datetime-local>` value read in the reader's time zone, as RFC 3339 for the API rules.
    package func rfc3339(fromLocalInput value: String) -> String? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        for format in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date.formatted(Date.ISO8601FormatStyle()) }
        }
        return nil
    }

    /// A `<time>` element's data: the machine value and the server's rendering (the script re-renders it locally).
    package func time(_ date: Date) -> TimeText {
        TimeText(iso: date.formatted(Date.ISO8601FormatStyle()), text: dateTime(date))
    }

    /// Renders a page template, with its view model, inside the layout.
    package func page(
        _ template: String, title: String, model: any Sendable = NoPageData(), status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) -> Response {
        let layout = LayoutView(
            t: strings, lang: language.rawValue, title: title, asset: resources.assetURLs,
            languages: WebLanguage.allCases.map { language in
                LayoutView.LanguageLink(
                    code: language.rawValue, label: resources.catalogues[language]?["language_name"] ?? language.rawValue,
                    current: language == self.language, back: path)
            },
            user: user.map { LayoutView.SignedIn(name: $0.name, isAdmin: $0.isAdmin) },
            loginLink: path.hasPrefix("/e/")
                ? "/login?next=" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "/") : "/login",
            appearance: user?.appearance?.rawValue, timeZone: user?.timeZone,
            jsStrings: resources.scriptStrings[language] ?? "{}")
        let html = resources.templates.render(PageContext(page: model, layout: layout), withTemplate: template) ?? "Missing template \(template)"
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        if fields[.cacheControl] == nil { fields[.cacheControl] = "no-store" }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A friendly error page: what happened and what to do (never a raw problem document).
    package func errorPage(status: HTTPResponse.Status, titleKey: String, messageKey: String, values: [String: String] = [:]) -> Response {
        page("error", title: t(titleKey), model: ErrorPage(heading: t(titleKey), message: t(messageKey, values)), status: status)
    }

    package static func redirect(_ location: String, cookies: [Cookie] = []) -> Response {
        var response = Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }
}

/// A form body (`application/x-www-form-urlencoded`), at most 64 KB.
package struct WebForm: Sendable {
    package let values: [String: String]

    package static func read(_ request: Request) async throws -> WebForm {
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        var values: [String: String] = [:]
        for pair in String(buffer: buffer).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let key = parts.first else { continue }
            values[key] = parts.count > 1 ? parts[1] : ""
        }
        return WebForm(values: values)
    }

    package subscript(_ key: String) -> String? { values[key] }

    package func isOn(_ key: String) -> Bool { ["on", "true", "1"].contains(values[key] ?? "") }
}

/// The friendly error page.
package struct ErrorPage: Sendable {
    package let heading: String
    package let message: String
}
