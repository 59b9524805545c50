import Foundation

/// `GET /api/v1/me/photos`: every photo and video I shot, in every event I am still in, newest first, with the events
/// they belong to (to group them by).
public struct MyPhotosPage: Codable, Sendable {
    public struct Event: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var code: String

        public init(id: String, name: String, code: String) {
            self.id = id
            self.name = name
            self.code = code
        }
    }

    public var items: [PhotoJSON]
    /// The events of this page's items, in the order they first appear.
    public var events: [Event]
    public var nextCursor: String?

    public init(items: [PhotoJSON], events: [Event], nextCursor: String?) {
        self.items = items
        self.events = events
        self.nextCursor = nextCursor
    }
}
