import Foundation

/// An account as the API shows it (never the password hash).
public struct UserJSON: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String
    public var isAdmin: Bool
    public var createdAt: Date
    /// The unique handle friends find the account by, once chosen.
    public var username: String?

    public init(id: String, email: String, name: String, isAdmin: Bool, createdAt: Date, username: String? = nil) {
        self.id = id
        self.email = email
        self.name = name
        self.isAdmin = isAdmin
        self.createdAt = createdAt
        self.username = username
    }
}

/// A guest of one event.
public struct GuestJSON: Codable, Sendable, Equatable {
    public var id: String
    public var eventId: String
    public var name: String
    public var joinedAt: Date
    public var shotsUsed: Int
    public var shotsLeft: Int

    public init(id: String, eventId: String, name: String, joinedAt: Date, shotsUsed: Int, shotsLeft: Int) {
        self.id = id
        self.eventId = eventId
        self.name = name
        self.joinedAt = joinedAt
        self.shotsUsed = shotsUsed
        self.shotsLeft = shotsLeft
    }
}

/// `POST /api/v1/users`.
/// The answer to registering on an instance with a mail server: a mail is on its way to the address (a link to
/// open the account, or a note that it has one already) — the same answer either way.
public struct SignUpPending: Codable, Sendable, Equatable {
    public var status: String

    public init(status: String = "confirmation-sent") {
        self.status = status
    }
}

public struct RegisterRequest: Codable, Sendable {
    public var email: String?
    public var password: String?
    public var name: String?
    /// The version of the terms and privacy notice the person accepted (kept with the account, like a guest's).
    public var acceptedTerms: String?

    public init(email: String?, password: String?, name: String? = nil, acceptedTerms: String? = nil) {
        self.email = email
        self.password = password
        self.name = name
        self.acceptedTerms = acceptedTerms
    }
}

/// `POST /api/v1/sessions`.
public struct LoginRequest: Codable, Sendable {
    public var email: String?
    public var password: String?

    public init(email: String?, password: String?) {
        self.email = email
        self.password = password
    }
}

/// A bearer token and the account it belongs to.
public struct Session: Codable, Sendable {
    public var token: String
    public var user: UserJSON

    public init(token: String, user: UserJSON) {
        self.token = token
        self.user = user
    }
}

/// `GET /api/v1/me`: an account (`kind` "user") or a guest (`kind` "guest").
public struct Me: Codable, Sendable {
    public var kind: String
    public var user: UserJSON?
    public var guest: GuestJSON?

    public init(kind: String, user: UserJSON?, guest: GuestJSON?) {
        self.kind = kind
        self.user = user
        self.guest = guest
    }
}

/// `POST /api/v1/join`: an event's code, a display name, and the event's password when it has one.
public struct JoinRequest: Codable, Sendable {
    public var code: String?
    /// The `k` of the QR code's link (`/e/CODE?k=KEY`). With it, a join is never slowed down by other
    /// people's wrong guesses from the same address; without it, unknown codes count against the address.
    public var key: String?
    public var name: String?
    public var password: String?
    /// The version of the terms the guest accepted (SUP-3).
    public var acceptedTerms: String?

    public init(code: String?, key: String? = nil, name: String?, password: String? = nil, acceptedTerms: String? = nil) {
        self.code = code
        self.key = key
        self.name = name
        self.password = password
        self.acceptedTerms = acceptedTerms
    }
}

/// `PATCH /api/v1/events/{id}/membership`: a guest corrects the name they joined under (GDPR rectification).
public struct MembershipPatch: Codable, Sendable {
    public var name: String

    public init(name: String) { self.name = name }
}

/// A guest's token, the guest and the event joined.
public struct JoinResult: Codable, Sendable {
    public var token: String
    public var guest: GuestJSON
    public var event: EventJSON

    public init(token: String, guest: GuestJSON, event: EventJSON) {
        self.token = token
        self.guest = guest
        self.event = event
    }
}

/// "Continue on another phone" (JN-5): a one-time link, valid a day.
public struct PersonalLink: Codable, Sendable {
    public var url: String
    public var expiresAt: Date

    public init(url: String, expiresAt: Date) {
        self.url = url
        self.expiresAt = expiresAt
    }
}

/// One guest of an event as its organizer sees them (ORG-3): who, since when, how many photos.
public struct EventGuestJSON: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var joinedAt: Date
    public var shotsUsed: Int
    /// Their photos in the event now (deleted ones not counted).
    public var photos: Int
    /// Their account's picture (SOC-5), when they joined signed in to an account that has one.
    public var avatarURL: String?

    public init(id: String, name: String, joinedAt: Date, shotsUsed: Int, photos: Int, avatarURL: String? = nil) {
        self.id = id
        self.name = name
        self.joinedAt = joinedAt
        self.shotsUsed = shotsUsed
        self.photos = photos
        self.avatarURL = avatarURL
    }
}

/// `GET /api/v1/events/{id}/guests`: the guests still in the event, in the order they joined.
public struct EventGuestList: Codable, Sendable, Equatable {
    public var items: [EventGuestJSON]

    public init(items: [EventGuestJSON]) {
        self.items = items
    }
}

/// `POST /api/v1/password-resets`: "forgot password" (the answer is always 202).
public struct PasswordResetRequest: Codable, Sendable {
    public var email: String?

    public init(email: String?) {
        self.email = email
    }
}

/// `POST /api/v1/password-resets/{token}`: the new password.
public struct NewPasswordRequest: Codable, Sendable {
    public var password: String?

    public init(password: String?) {
        self.password = password
    }
}

/// `POST /api/v1/me/password`: a signed-in user changes their password; their other sessions end.
public struct PasswordChange: Codable, Sendable {
    public var currentPassword: String?
    public var newPassword: String?
    /// Whether the account's app passwords stop working too (true when left out): whoever knew the old password
    /// could have made one.
    public var revokeAppPasswords: Bool?

    public init(currentPassword: String?, newPassword: String?, revokeAppPasswords: Bool? = nil) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
        self.revokeAppPasswords = revokeAppPasswords
    }
}

/// A one-time link to set a new password, valid an hour (the admin hands it over when there is no mail server).
public struct ResetLink: Codable, Sendable {
    public var resetURL: String
    public var expiresAt: Date

    public init(resetURL: String, expiresAt: Date) {
        self.resetURL = resetURL
        self.expiresAt = expiresAt
    }
}

/// One of my sessions (a signed-in browser, phone or script).
public struct SessionJSON: Codable, Sendable, Equatable {
    public var id: String
    /// "Chrome on Android", from the User-Agent it signed in with.
    public var device: String?
    public var createdAt: Date
    /// To the hour: a session notes its use at most once an hour.
    public var lastSeenAt: Date
    /// The session asking.
    public var current: Bool

    public init(id: String, device: String?, createdAt: Date, lastSeenAt: Date, current: Bool) {
        self.id = id
        self.device = device
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.current = current
    }
}

/// `GET /api/v1/me/sessions`.
public struct SessionList: Codable, Sendable {
    public var items: [SessionJSON]

    public init(items: [SessionJSON]) {
        self.items = items
    }
}

/// `PATCH /api/v1/me`: what a user changes of their profile (SOC-5).
public struct ProfilePatch: Codable, Sendable {
    public var name: String?
    /// An IANA time zone (`Europe/Paris`): the one months and years are counted in (CAP-2, CAP-3).
    public var timeZone: String?
    /// 3–30 of a–z, 0–9, `.` and `_` (case does not matter: stored lowercase), unique on the instance.
    public var username: String?
    /// `light`, `dark`, or `system` to follow the device.
    public var appearance: String?

    public init(name: String?, timeZone: String? = nil, username: String? = nil, appearance: String? = nil) {
        self.name = name
        self.timeZone = timeZone
        self.username = username
        self.appearance = appearance
    }
}

/// A user's profile: display name and picture (a 400 px JPEG, or none).
public struct ProfileJSON: Codable, Sendable {
    public var name: String
    public var avatarURL: String?
    public var timeZone: String?
    public var username: String?
    /// `light`, `dark` or `system`.
    public var appearance: String?

    public init(name: String, avatarURL: String?, timeZone: String? = nil, username: String? = nil, appearance: String? = nil) {
        self.name = name
        self.avatarURL = avatarURL
        self.timeZone = timeZone
        self.username = username
        self.appearance = appearance
    }
}
