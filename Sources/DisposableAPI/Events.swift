import Foundation

/// When the general gallery opens (GAL-2).
public enum RevealMode: String, Sendable, Codable, CaseIterable {
    /// Photos are visible as soon as they are ready.
    case now
    /// Photos stay "developing" until the event ends.
    case atEnd = "at-end"
    /// Photos stay "developing" until a chosen time.
    case at
}

/// Where an event is in its life (EV-3). Expired events are deleted, so they are never shown.
public enum EventStatus: String, Sendable, Codable {
    case scheduled, live, ended
}

/// How a caller relates to an event.
public enum EventRole: String, Sendable, Codable {
    case organizer, guest
}

/// An event as the API shows it.
public struct EventJSON: Codable, Sendable, Equatable {
    public struct Reveal: Codable, Sendable, Equatable {
        public var mode: RevealMode
        public var at: Date?

        public init(mode: RevealMode, at: Date?) {
            self.mode = mode
            self.at = at
        }
    }

    public var id: String
    public var code: String
    public var joinURL: String
    public var name: String
    public var description: String
    public var status: EventStatus
    public var startsAt: Date
    public var endsAt: Date
    public var deletesAt: Date
    public var shotsPerGuest: Int
    public var reveal: Reveal
    /// When the general gallery opens, whatever the mode.
    public var revealsAt: Date
    public var allowLibraryUploads: Bool
    public var allowGuestDownloads: Bool
    public var hasPassword: Bool
    public var maxGuests: Int?
    /// ORG-4: guests' photos wait for the organizer's approval.
    public var requireApproval: Bool
    /// SOC-1: guestbook notes and drawings take a shot like photos do (default: they are free).
    public var postsCountAsShots: Bool
    /// SOC-4: guests may post short videos (at most 30 seconds; default: no).
    public var allowVideos: Bool
    public var guestCount: Int
    /// True once the first photo is taken: most settings are then locked (EV-2).
    public var settingsLocked: Bool
    /// How the caller relates to the event.
    public var role: EventRole
    /// For its organizers: whether the caller owns the event (false for a co-organizer); absent for guests.
    public var owner: Bool?
    public var createdAt: Date

    public init(
        id: String, code: String, joinURL: String, name: String, description: String, status: EventStatus, startsAt: Date,
        endsAt: Date, deletesAt: Date, shotsPerGuest: Int, reveal: Reveal, revealsAt: Date, allowLibraryUploads: Bool,
        allowGuestDownloads: Bool, hasPassword: Bool, maxGuests: Int?, requireApproval: Bool, postsCountAsShots: Bool = false,
        allowVideos: Bool = false, guestCount: Int, settingsLocked: Bool, role: EventRole, owner: Bool? = nil, createdAt: Date
    ) {
        self.owner = owner
        self.postsCountAsShots = postsCountAsShots
        self.allowVideos = allowVideos
        self.id = id
        self.code = code
        self.joinURL = joinURL
        self.name = name
        self.description = description
        self.status = status
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.deletesAt = deletesAt
        self.shotsPerGuest = shotsPerGuest
        self.reveal = reveal
        self.revealsAt = revealsAt
        self.allowLibraryUploads = allowLibraryUploads
        self.allowGuestDownloads = allowGuestDownloads
        self.hasPassword = hasPassword
        self.maxGuests = maxGuests
        self.requireApproval = requireApproval
        self.guestCount = guestCount
        self.settingsLocked = settingsLocked
        self.role = role
        self.createdAt = createdAt
    }
}

/// `GET /api/v1/events`: the events a caller organizes or joined.
public struct EventList: Codable, Sendable {
    public var items: [EventJSON]

    public init(items: [EventJSON]) {
        self.items = items
    }
}

/// A JSON member of a PATCH body: left out, set to null, or given a value.
public enum PatchValue<Value: Codable & Sendable>: Sendable {
    case absent, null, value(Value)

    public var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }
}

extension PatchValue: Equatable where Value: Equatable {}

extension KeyedDecodingContainer {
    func patchValue<Value: Codable & Sendable>(_ key: Key) throws -> PatchValue<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    mutating func encode<Value>(_ patch: PatchValue<Value>, forKey key: Key) throws {
        switch patch {
        case .absent: break
        case .null: try encodeNil(forKey: key)
        case .value(let value): try encode(value, forKey: key)
        }
    }
}

/// `reveal: {mode, at?}` as clients send it.
public struct RevealInput: Codable, Sendable, Equatable {
    public var mode: String?
    public var at: String?

    public init(mode: String?, at: String? = nil) {
        self.mode = mode
        self.at = at
    }
}

/// The settings of an event as sent to create (`POST`) or edit (`PATCH`) it, before validation.
/// On create every member may be left out (defaults apply); on edit only what is sent changes.
public struct EventSettingsInput: Codable, Sendable {
    public var name: PatchValue<String> = .absent
    public var description: PatchValue<String> = .absent
    /// RFC 3339.
    public var startsAt: PatchValue<String> = .absent
    public var durationHours: PatchValue<Int> = .absent
    /// RFC 3339; give either this or `durationHours`.
    public var endsAt: PatchValue<String> = .absent
    public var shotsPerGuest: PatchValue<Int> = .absent
    public var reveal: PatchValue<RevealInput> = .absent
    public var allowLibraryUploads: PatchValue<Bool> = .absent
    public var allowGuestDownloads: PatchValue<Bool> = .absent
    /// Empty or null removes the password.
    public var password: PatchValue<String> = .absent
    public var maxGuests: PatchValue<Int> = .absent
    public var requireApproval: PatchValue<Bool> = .absent
    public var postsCountAsShots: PatchValue<Bool> = .absent
    public var allowVideos: PatchValue<Bool> = .absent

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, startsAt, durationHours, endsAt, shotsPerGuest, reveal
        case allowLibraryUploads, allowGuestDownloads, password, maxGuests, requireApproval, postsCountAsShots, allowVideos
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.patchValue(.name)
        description = try container.patchValue(.description)
        startsAt = try container.patchValue(.startsAt)
        durationHours = try container.patchValue(.durationHours)
        endsAt = try container.patchValue(.endsAt)
        shotsPerGuest = try container.patchValue(.shotsPerGuest)
        reveal = try container.patchValue(.reveal)
        allowLibraryUploads = try container.patchValue(.allowLibraryUploads)
        allowGuestDownloads = try container.patchValue(.allowGuestDownloads)
        password = try container.patchValue(.password)
        maxGuests = try container.patchValue(.maxGuests)
        requireApproval = try container.patchValue(.requireApproval)
        postsCountAsShots = try container.patchValue(.postsCountAsShots)
        allowVideos = try container.patchValue(.allowVideos)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(description, forKey: .description)
        try container.encode(startsAt, forKey: .startsAt)
        try container.encode(durationHours, forKey: .durationHours)
        try container.encode(endsAt, forKey: .endsAt)
        try container.encode(shotsPerGuest, forKey: .shotsPerGuest)
        try container.encode(reveal, forKey: .reveal)
        try container.encode(allowLibraryUploads, forKey: .allowLibraryUploads)
        try container.encode(allowGuestDownloads, forKey: .allowGuestDownloads)
        try container.encode(password, forKey: .password)
        try container.encode(maxGuests, forKey: .maxGuests)
        try container.encode(requireApproval, forKey: .requireApproval)
        try container.encode(postsCountAsShots, forKey: .postsCountAsShots)
        try container.encode(allowVideos, forKey: .allowVideos)
    }
}

/// The venue wall's link (GAL-5): opens the event's wall on any screen without signing in.
public struct WallLink: Codable, Sendable, Equatable {
    public let url: String

    public init(url: String) {
        self.url = url
    }
}
