import Foundation

/// An account as the admin sees it (ADM-4): its quota and what it uses.
public struct AdminUserJSON: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String
    public var isAdmin: Bool
    /// What the account may store, in bytes: its own quota, or the instance's default.
    public var quotaBytes: Int64
    /// Whether `quotaBytes` is the instance's default (it then follows changes to the default).
    public var quotaIsDefault: Bool
    /// The originals of the photos in the events it organizes.
    public var usedBytes: Int64
    public var createdAt: Date
    /// The account's picture (SOC-5), if it has one.
    public var avatarURL: String?
    /// Whether the account signs in with the instance's OpenID Connect provider.
    public var usesOpenID: Bool

    public init(
        id: String, email: String, name: String, isAdmin: Bool, quotaBytes: Int64, quotaIsDefault: Bool, usedBytes: Int64, createdAt: Date,
        avatarURL: String? = nil, usesOpenID: Bool = false
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.isAdmin = isAdmin
        self.quotaBytes = quotaBytes
        self.quotaIsDefault = quotaIsDefault
        self.usedBytes = usedBytes
        self.createdAt = createdAt
        self.avatarURL = avatarURL
        self.usesOpenID = usesOpenID
    }
}

/// `GET /api/v1/admin/users`: accounts by email, a page at a time.
public struct AdminUserList: Codable, Sendable {
    public var items: [AdminUserJSON]
    public var nextCursor: String?

    public init(items: [AdminUserJSON], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// `POST /api/v1/admin/users`: an account the admin adds.
public struct NewUserRequest: Codable, Sendable {
    public var email: String?
    public var password: String?
    public var name: String?
    public var isAdmin: Bool?
    /// Left out: the instance's default.
    public var quotaBytes: Int64?

    public init(email: String?, password: String?, name: String? = nil, isAdmin: Bool? = nil, quotaBytes: Int64? = nil) {
        self.email = email
        self.password = password
        self.name = name
        self.isAdmin = isAdmin
        self.quotaBytes = quotaBytes
    }
}

/// `PATCH /api/v1/admin/users/{id}`: only what is sent changes; `quotaBytes: null` returns to the default.
public struct AdminUserPatch: Codable, Sendable {
    public var name: PatchValue<String> = .absent
    public var isAdmin: PatchValue<Bool> = .absent
    public var quotaBytes: PatchValue<Int64> = .absent

    enum CodingKeys: String, CodingKey {
        case name, isAdmin, quotaBytes
    }

    public init(name: PatchValue<String> = .absent, isAdmin: PatchValue<Bool> = .absent, quotaBytes: PatchValue<Int64> = .absent) {
        self.name = name
        self.isAdmin = isAdmin
        self.quotaBytes = quotaBytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.patchValue(.name)
        isAdmin = try container.patchValue(.isAdmin)
        quotaBytes = try container.patchValue(.quotaBytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(isAdmin, forKey: .isAdmin)
        try container.encode(quotaBytes, forKey: .quotaBytes)
    }
}

/// `GET / PATCH /api/v1/admin/settings`: the instance's switches (a PATCH sends only what changes).
public struct InstanceSettingsJSON: Codable, Sendable, Equatable {
    public var registrationEnabled: Bool?
    public var defaultQuotaBytes: Int64?

    public init(registrationEnabled: Bool?, defaultQuotaBytes: Int64?) {
        self.registrationEnabled = registrationEnabled
        self.defaultQuotaBytes = defaultQuotaBytes
    }
}

/// `GET /api/v1/admin/stats` (ADM-6).
public struct InstanceStats: Codable, Sendable {
    public struct Events: Codable, Sendable {
        public var upcoming: Int
        public var live: Int
        public var ended: Int

        public init(upcoming: Int, live: Int, ended: Int) {
            self.upcoming = upcoming
            self.live = live
            self.ended = ended
        }
    }

    public struct Day: Codable, Sendable, Equatable {
        /// `2026-11-24`, in UTC.
        public var day: String
        public var uploads: Int

        public init(day: String, uploads: Int) {
            self.day = day
            self.uploads = uploads
        }
    }

    public struct Storage: Codable, Sendable {
        /// `folder` or `s3`.
        public var kind: String
        /// Originals and derivatives of every photo.
        public var storedBytes: Int64
        /// The disk under the folder (absent for a bucket, whose size the instance does not know).
        public var diskFreeBytes: Int64?
        public var diskTotalBytes: Int64?

        public init(kind: String, storedBytes: Int64, diskFreeBytes: Int64?, diskTotalBytes: Int64?) {
            self.kind = kind
            self.storedBytes = storedBytes
            self.diskFreeBytes = diskFreeBytes
            self.diskTotalBytes = diskTotalBytes
        }
    }

    public var users: Int
    public var events: Events
    public var photos: Int
    /// Uploads per day over the last 30 days, oldest first, days without uploads included.
    public var uploadsPerDay: [Day]
    /// Photos waiting for their thumbnails.
    public var renderQueueDepth: Int
    public var storage: Storage

    public init(users: Int, events: Events, photos: Int, uploadsPerDay: [Day], renderQueueDepth: Int, storage: Storage) {
        self.users = users
        self.events = events
        self.photos = photos
        self.uploadsPerDay = uploadsPerDay
        self.renderQueueDepth = renderQueueDepth
        self.storage = storage
    }
}
