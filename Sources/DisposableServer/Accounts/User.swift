import DisposableAPI
import Foundation

/// An account: an organizer, and possibly the instance's admin.
public struct User: Sendable, Equatable {
    public let id: String
    public let email: String
    public let name: String
    public let isAdmin: Bool
    public let createdAt: Date
}

extension UserJSON {
    init(_ user: User) {
        self.init(id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, createdAt: user.createdAt)
    }
}
