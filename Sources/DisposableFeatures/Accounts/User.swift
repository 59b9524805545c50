import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// An account: an organizer, and possibly the instance's admin.
public struct User: Sendable, Equatable {
    public let id: String
    public let email: String
    public let name: String
    public let isAdmin: Bool
    public let createdAt: Date
    /// The unique handle friends find the account by; nil until chosen.
    public var username: String? = nil
    /// Light or dark pages whatever the system says; nil follows the system.
    public var appearance: Appearance? = nil
    /// The IANA zone the person lives in: months and years are counted in it, and pages show times in it; nil
    /// until set (then pages use the browser's zone).
    public var timeZone: String? = nil

    package init(
        id: String, email: String, name: String, isAdmin: Bool, createdAt: Date, username: String? = nil, appearance: Appearance? = nil,
        timeZone: String? = nil
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.isAdmin = isAdmin
        self.createdAt = createdAt
        self.username = username
        self.appearance = appearance
        self.timeZone = timeZone
    }
}

/// How pages look for an account that chose: light or dark whatever the device's setting.
public enum Appearance: String, Sendable, CaseIterable {
    case light, dark
}

extension UserJSON {
    package init(_ user: User) {
        self.init(id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, createdAt: user.createdAt, username: user.username)
    }
}
