import Foundation

/// An account: an organizer, and possibly the instance's admin.
public struct User: Sendable, Equatable {
    public let id: String
    public let email: String
    public let name: String
    public let isAdmin: Bool
    public let createdAt: Date
}

/// A user as the API shows it (never the password hash).
struct UserJSON: Encodable, Sendable {
    let id: String
    let email: String
    let name: String
    let isAdmin: Bool
    let createdAt: Date

    init(_ user: User) {
        id = user.id
        email = user.email
        name = user.name
        isAdmin = user.isAdmin
        createdAt = user.createdAt
    }
}
