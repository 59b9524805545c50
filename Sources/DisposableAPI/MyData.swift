import Foundation

/// `data.json` in `GET /api/v1/me/export`, and what the "My data" page shows (SUP-4): everything stored about
/// the person asking — an account or a guest.
public struct MyData: Codable, Sendable {
    public struct Account: Codable, Sendable {
        public var id: String
        public var email: String
        public var name: String
        public var isAdmin: Bool
        public var createdAt: Date
        public var quotaBytes: Int64
        public var usedBytes: Int64

        public init(id: String, email: String, name: String, isAdmin: Bool, createdAt: Date, quotaBytes: Int64, usedBytes: Int64) {
            self.id = id
            self.email = email
            self.name = name
            self.isAdmin = isAdmin
            self.createdAt = createdAt
            self.quotaBytes = quotaBytes
            self.usedBytes = usedBytes
        }
    }

    /// A guest: the person asking, or one of an account's memberships in others' events.
    public struct Membership: Codable, Sendable {
        public var guestId: String
        public var eventId: String
        public var eventName: String
        public var name: String
        public var joinedAt: Date
        public var leftAt: Date?
        public var shotsUsed: Int
        public var termsVersion: String?
        public var termsAcceptedAt: Date?

        public init(
            guestId: String, eventId: String, eventName: String, name: String, joinedAt: Date, leftAt: Date? = nil, shotsUsed: Int,
            termsVersion: String? = nil, termsAcceptedAt: Date? = nil
        ) {
            self.guestId = guestId
            self.eventId = eventId
            self.eventName = eventName
            self.name = name
            self.joinedAt = joinedAt
            self.leftAt = leftAt
            self.shotsUsed = shotsUsed
            self.termsVersion = termsVersion
            self.termsAcceptedAt = termsAcceptedAt
        }
    }

    public struct Event: Codable, Sendable {
        public var id: String
        public var name: String
        public var code: String
        public var startsAt: Date
        public var endsAt: Date
        public var photoCount: Int

        public init(id: String, name: String, code: String, startsAt: Date, endsAt: Date, photoCount: Int) {
            self.id = id
            self.name = name
            self.code = code
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.photoCount = photoCount
        }
    }

    public struct Photo: Codable, Sendable {
        public var id: String
        public var eventId: String
        /// Its name in the export's `photos/` folder.
        public var file: String
        public var takenAt: Date
        public var uploadedAt: Date
        public var byteSize: Int64
        public var format: String
        public var sha256: String

        public init(id: String, eventId: String, file: String, takenAt: Date, uploadedAt: Date, byteSize: Int64, format: String, sha256: String) {
            self.id = id
            self.eventId = eventId
            self.file = file
            self.takenAt = takenAt
            self.uploadedAt = uploadedAt
            self.byteSize = byteSize
            self.format = format
            self.sha256 = sha256
        }
    }

    /// An asset of the account's own library (LIB-1), trash included.
    public struct LibraryFile: Codable, Sendable {
        public var id: String
        /// Its name in the export's `library/` folder.
        public var file: String
        public var takenAt: Date
        public var byteSize: Int64
        public var format: String
        public var sha256: String
        public var inTrash: Bool
        /// The words it came with (an Instagram post's caption).
        public var caption: String?

        public init(
            id: String, file: String, takenAt: Date, byteSize: Int64, format: String, sha256: String, inTrash: Bool, caption: String? = nil
        ) {
            self.id = id
            self.file = file
            self.takenAt = takenAt
            self.byteSize = byteSize
            self.format = format
            self.sha256 = sha256
            self.inTrash = inTrash
            self.caption = caption
        }
    }

    public struct Ticket: Codable, Sendable {
        public var id: String
        public var subject: String
        public var status: String
        public var createdAt: Date

        public init(id: String, subject: String, status: String, createdAt: Date) {
            self.id = id
            self.subject = subject
            self.status = status
            self.createdAt = createdAt
        }
    }

    /// `user` or `guest`.
    public var kind: String
    public var exportedAt: Date
    public var account: Account?
    public var guest: Membership?
    public var memberships: [Membership]
    public var events: [Event]
    public var photos: [Photo]
    public var sessions: [SessionJSON]
    public var tickets: [Ticket]
    public var library: [LibraryFile]
    /// CAP-3: an account's moments, oldest first.
    public var moments: [MomentJSON] = []
    /// The Maloja server the capsule's song comes from; its API key is not written here.
    public var scrobbler: ScrobblerJSON? = nil
    /// The devices' app passwords for WebDAV: names, dates, last address; never the passwords.
    public var appPasswords: [AppPasswordJSON] = []
    /// The browsers notices are pushed to; their push addresses and keys are not written here.
    public var pushDevices: [PushDeviceJSON] = []
    /// CAP-2: an account's capsules, oldest first.
    public var capsules: [Capsule] = []
    /// The names of an account's friends (and of requests either way), as the friends page shows them.
    public var friends: [String] = []
    /// What an account wrote on friends' shared capsules, oldest first.
    public var capsuleComments: [CapsuleComment] = []
    /// ORG-5: the events an account organizes beside their owner, with when it began.
    public var coOrganized: [CoOrganized] = []

    public struct CoOrganized: Codable, Sendable {
        public var eventId: String
        public var eventName: String
        public var since: Date

        public init(eventId: String, eventName: String, since: Date) {
            self.eventId = eventId
            self.eventName = eventName
            self.since = since
        }
    }

    public struct CapsuleComment: Codable, Sendable {
        public var capsuleId: String
        public var text: String
        public var createdAt: Date

        public init(capsuleId: String, text: String, createdAt: Date) {
            self.capsuleId = capsuleId
            self.text = text
            self.createdAt = createdAt
        }
    }

    /// A monthly capsule: its month, the library photos it holds (ids, as in `library`), the owner's words and song.
    public struct Capsule: Codable, Sendable {
        public var month: String
        public var photoIds: [String]
        public var quote: String?
        public var songTitle: String?
        public var songArtist: String?
        public var releasedAt: Date

        public init(month: String, photoIds: [String], quote: String?, songTitle: String?, songArtist: String?, releasedAt: Date) {
            self.month = month
            self.photoIds = photoIds
            self.quote = quote
            self.songTitle = songTitle
            self.songArtist = songArtist
            self.releasedAt = releasedAt
        }
    }

    public init(
        kind: String, exportedAt: Date, account: Account? = nil, guest: Membership? = nil, memberships: [Membership], events: [Event],
        photos: [Photo], sessions: [SessionJSON], tickets: [Ticket], library: [LibraryFile] = []
    ) {
        self.kind = kind
        self.exportedAt = exportedAt
        self.account = account
        self.guest = guest
        self.memberships = memberships
        self.events = events
        self.photos = photos
        self.sessions = sessions
        self.tickets = tickets
        self.library = library
    }
}

/// `DELETE /api/v1/me`: an account is deleted only with its e-mail address typed again; a guest sends nothing.
public struct DeleteMeRequest: Codable, Sendable {
    public var confirmEmail: String?

    public init(confirmEmail: String? = nil) {
        self.confirmEmail = confirmEmail
    }
}
