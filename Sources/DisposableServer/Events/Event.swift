import DisposableAPI
import Foundation

/// A disposable-camera event.
public struct Event: Sendable, Equatable {
    public let id: String
    public let organizerID: String
    public let code: EventCode
    public var name: String
    public var description: String
    public var startsAt: Date
    public var endsAt: Date
    public var shotsPerGuest: Int
    public var revealMode: RevealMode
    public var revealAt: Date?
    public var allowLibraryUploads: Bool
    public var allowGuestDownloads: Bool
    public var passwordHash: String?
    public var maxGuests: Int?
    /// ORG-4: guests' photos wait for the organizer's approval before other guests see them.
    public var requireApproval: Bool = false
    public let guestCount: Int
    /// Set by the first photo; from then on only some settings stay editable (EV-2).
    public let firstPhotoAt: Date?
    public let createdAt: Date
    /// The change feed's position when this row was read: it moves with every change to the event or its
    /// photos (in the same transaction), so pages worked out at one position stay true while it stands.
    public var changeSeq: Int64 = 0

    public func status(at now: Date) -> EventStatus {
        if now < startsAt { return .scheduled }
        if now < endsAt { return .live }
        return .ended
    }

    /// The moment the general gallery opens, whatever the mode.
    public var revealsAt: Date {
        switch revealMode {
        case .now: startsAt
        case .atEnd: endsAt
        case .at: revealAt ?? endsAt
        }
    }

    /// When the event and all its photos are deleted (RET-1).
    public func deletesAt(retention: TimeInterval) -> Date { endsAt + retention }

    public var hasPhotos: Bool { firstPhotoAt != nil }

    /// The same settings under another code (a new event's code is drawn until one is free).
    func withCode(_ code: EventCode) -> Event {
        Event(
            id: id, organizerID: organizerID, code: code, name: name, description: description, startsAt: startsAt,
            endsAt: endsAt, shotsPerGuest: shotsPerGuest, revealMode: revealMode, revealAt: revealAt,
            allowLibraryUploads: allowLibraryUploads, allowGuestDownloads: allowGuestDownloads, passwordHash: passwordHash,
            maxGuests: maxGuests, requireApproval: requireApproval, guestCount: guestCount, firstPhotoAt: firstPhotoAt,
            createdAt: createdAt)
    }
}
