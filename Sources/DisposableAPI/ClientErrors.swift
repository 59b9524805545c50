import Foundation

/// `POST /api/v1/client-errors`: an error a page met in a browser, so that the admin hears of it.
public struct ClientErrorReport: Codable, Sendable {
    public var message: String
    /// The page's path (its query and fragment are dropped: they may hold keys).
    public var page: String
    public var stack: String?

    public init(message: String, page: String, stack: String? = nil) {
        self.message = message
        self.page = page
        self.stack = stack
    }
}

/// One of the last browser errors, as the admin sees it.
public struct ClientErrorJSON: Codable, Sendable, Equatable {
    public var id: String
    public var at: Date
    public var page: String
    public var message: String
    public var stack: String?
    /// "Chrome on Android", from the browser's User-Agent.
    public var browser: String?

    public init(id: String, at: Date, page: String, message: String, stack: String? = nil, browser: String? = nil) {
        self.id = id
        self.at = at
        self.page = page
        self.message = message
        self.stack = stack
        self.browser = browser
    }
}
