import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Someone who joined one event with a display name; no account needed.
public struct Guest: Sendable, Equatable {
    public let id: String
    public let eventID: String
    public let userID: String?
    public let name: String
    public let joinedAt: Date
    public let leftAt: Date?
    public let shotsUsed: Int

    package init(id: String, eventID: String, userID: String?, name: String, joinedAt: Date, leftAt: Date?, shotsUsed: Int) {
        self.id = id
        self.eventID = eventID
        self.userID = userID
        self.name = name
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.shotsUsed = shotsUsed
    }

    /// The film left: what the event gives each guest, less what they took (never below nothing).
    package func shotsLeft(of shotsPerGuest: Int) -> Int { max(0, shotsPerGuest - shotsUsed) }
}

extension GuestJSON {
    package init(_ guest: Guest, shotsPerGuest: Int) {
        self.init(
            id: guest.id, eventId: guest.eventID, name: guest.name, joinedAt: guest.joinedAt, shotsUsed: guest.shotsUsed,
            shotsLeft: guest.shotsLeft(of: shotsPerGuest))
    }
}
