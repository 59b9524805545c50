import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Mustache

/// What a template renders: the page's own view model, then the layout's (the layout's keys are found when the
/// page has none of that name, as mustache looks further up its context).
package struct PageContext: MustacheParent {
    package let page: any Sendable
    package let layout: LayoutView

    package func child(named name: String) -> Any? {
        Self.property(name, of: page) ?? Self.property(name, of: layout)
    }

    /// A stored property of a view model by name; nil when it has none or it is nil.
    package static func property(_ name: String, of model: Any) -> Any? {
        guard let value = Mirror(reflecting: model).children.first(where: { $0.label == name })?.value else { return nil }
        let optional = Mirror(reflecting: value)
        guard optional.displayStyle == .optional else { return value }
        return optional.children.first?.value
    }
}

/// What every page's layout shows: language, title, assets, the language switcher, who is signed in.
package struct LayoutView: Sendable {
    package struct LanguageLink: Sendable {
        package let code: String
        package let label: String
        package let current: Bool
        package let back: String
    }

    package struct SignedIn: Sendable {
        package let name: String
        package let isAdmin: Bool
    }

    /// The reader's string catalogue, by key.
    package let t: [String: String]
    package let lang: String
    package let title: String
    /// `app_js` → `/static/app.js?v=…`.
    package let asset: [String: String]
    package let languages: [LanguageLink]
    package let user: SignedIn?
    /// "Log in" brings a guest back to their event's page: signing up or in there keeps them that guest.
    package let loginLink: String
    /// `light` or `dark` when the signed-in account chose one; nil follows the device.
    package let appearance: String?
    /// The signed-in account's zone, which the scripts show times in; nil: the browser's.
    package let timeZone: String?
    package let jsStrings: String
}

/// A `<time>` element's data: the machine value and the server's rendering (the script re-renders it locally).
package struct TimeText: Sendable {
    package let iso: String
    package let text: String
}

/// A page with nothing of its own (help).
package struct NoPageData: Sendable { package init() {} }
