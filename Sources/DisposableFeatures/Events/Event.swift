import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// A disposable-camera event.
public struct Event: Sendable, Equatable {
    public let id: String
    public let organizerID: String
    public let code: EventCode
    /// The secret half of the QR code's link (`/e/CODE?k=KEY`): whoever holds it got it from the organizer's
    /// QR or share, so joining with it is never slowed by others' wrong guesses, while typed codes are.
    public let joinKey: String
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
    /// SOC-1: guestbook notes and drawings take a shot (otherwise they are free, within `Guestbook.postsPerGuest`).
    public var postsCountAsShots: Bool = false
    /// SOC-4: guests may post short videos.
    public var allowVideos: Bool = false
    public let guestCount: Int
    /// Set by the first photo; from then on only some settings stay editable (EV-2).
    public let firstPhotoAt: Date?
    public let createdAt: Date
    /// The change feed's position when this row was read: it moves with every change to the event or its
    /// photos (in the same transaction), so pages worked out at one position stay true while it stands.
    public var changeSeq: Int64 = 0
    /// The venue wall's link key (`/w/KEY`, GAL-5), while the organizer keeps one: it shows what every guest
    /// may see, on a screen nobody signs in on.
    public var wallKey: String? = nil

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

    package init(
        id: String, organizerID: String, code: EventCode, joinKey: String, name: String, description: String, startsAt: Date, endsAt: Date,
        shotsPerGuest: Int, revealMode: RevealMode, revealAt: Date? = nil, allowLibraryUploads: Bool, allowGuestDownloads: Bool,
        passwordHash: String? = nil, maxGuests: Int? = nil, requireApproval: Bool = false, postsCountAsShots: Bool = false, allowVideos: Bool = false,
        guestCount: Int, firstPhotoAt: Date?, createdAt: Date, changeSeq: Int64 = 0, wallKey: String? = nil
    ) {
        self.id = id
        self.organizerID = organizerID
        self.code = code
        self.joinKey = joinKey
        self.name = name
        self.description = description
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.shotsPerGuest = shotsPerGuest
        self.revealMode = revealMode
        self.revealAt = revealAt
        self.allowLibraryUploads = allowLibraryUploads
        self.allowGuestDownloads = allowGuestDownloads
        self.passwordHash = passwordHash
        self.maxGuests = maxGuests
        self.requireApproval = requireApproval
        self.postsCountAsShots = postsCountAsShots
        self.allowVideos = allowVideos
        self.guestCount = guestCount
        self.firstPhotoAt = firstPhotoAt
        self.createdAt = createdAt
        self.changeSeq = changeSeq
        self.wallKey = wallKey
    }

    /// Whether `key` is this event's join key (compared in constant time).
    package func opens(withKey key: String?) -> Bool {
        key?.equalsInConstantTime(joinKey) ?? false
    }

    package static func newJoinKey() -> String { String(SecretToken.generate().prefix(22)) }

    /// The same settings under another code (a new event's code is drawn until one is free).
    package func withCode(_ code: EventCode) -> Event {
        Event(
            id: id, organizerID: organizerID, code: code, joinKey: joinKey, name: name, description: description, startsAt: startsAt,
            endsAt: endsAt, shotsPerGuest: shotsPerGuest, revealMode: revealMode, revealAt: revealAt,
            allowLibraryUploads: allowLibraryUploads, allowGuestDownloads: allowGuestDownloads, passwordHash: passwordHash,
            maxGuests: maxGuests, requireApproval: requireApproval, postsCountAsShots: postsCountAsShots, allowVideos: allowVideos,
            guestCount: guestCount,
            firstPhotoAt: firstPhotoAt, createdAt: createdAt)
    }
}
