import Mustache

/// What a template renders: the page's own view model, then the layout's (the layout's keys are found when the
/// page has none of that name, as mustache looks further up its context).
struct PageContext: MustacheParent {
    let page: any Sendable
    let layout: LayoutView

    func child(named name: String) -> Any? {
        Self.property(name, of: page) ?? Self.property(name, of: layout)
    }

    /// A stored property of a view model by name; nil when it has none or it is nil.
    static func property(_ name: String, of model: Any) -> Any? {
        guard let value = Mirror(reflecting: model).children.first(where: { $0.label == name })?.value else { return nil }
        let optional = Mirror(reflecting: value)
        guard optional.displayStyle == .optional else { return value }
        return optional.children.first?.value
    }
}

/// What every page's layout shows: language, title, assets, the language switcher, who is signed in.
struct LayoutView: Sendable {
    struct LanguageLink: Sendable {
        let code: String
        let label: String
        let current: Bool
        let back: String
    }

    struct SignedIn: Sendable {
        let name: String
        let isAdmin: Bool
    }

    /// The reader's string catalogue, by key.
    let t: [String: String]
    let lang: String
    let title: String
    /// `app_js` → `/static/app.js?v=…`.
    let asset: [String: String]
    let languages: [LanguageLink]
    let user: SignedIn?
    /// "Log in" brings a guest back to their event's page: signing up or in there keeps them that guest.
    let loginLink: String
    /// `light` or `dark` when the signed-in account chose one; nil follows the device.
    let appearance: String?
    /// The signed-in account's zone, which the scripts show times in; nil: the browser's.
    let timeZone: String?
    let jsStrings: String
}

/// A `<time>` element's data: the machine value and the server's rendering (the script re-renders it locally).
struct TimeText: Sendable {
    let iso: String
    let text: String
}

/// A page with nothing of its own (help).
struct NoPageData: Sendable {}
