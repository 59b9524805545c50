import Foundation

/// `POST /api/v1/me/app-passwords`: a device's own password for WebDAV, named after the device.
public struct AppPasswordInput: Codable, Sendable {
    public var name: String
    /// The account's password, asked again: a session someone else holds must not mint a lasting way in.
    /// (An account opened by its OpenID provider that has no password yet is not asked.)
    public var currentPassword: String?

    public init(name: String, currentPassword: String? = nil) {
        self.name = name
        self.currentPassword = currentPassword
    }
}

/// An app password as listed: never the password itself, which exists in clear only in `NewAppPasswordJSON`.
public struct AppPasswordJSON: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: Date
    /// When a WebDAV client last signed in with it, and from which address; nil before its first use.
    public var lastUsedAt: Date?
    public var lastUsedAddress: String?

    public init(id: String, name: String, createdAt: Date, lastUsedAt: Date? = nil, lastUsedAddress: String? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.lastUsedAddress = lastUsedAddress
    }
}

/// The answer to creating one: the password, shown this once.
public struct NewAppPasswordJSON: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var password: String
    public var createdAt: Date

    public init(id: String, name: String, password: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.password = password
        self.createdAt = createdAt
    }
}
