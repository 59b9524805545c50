import Foundation

/// Where a photo is in its processing (MED-1).
public enum PhotoStatus: String, Sendable, Codable {
    /// Stored safely; derivatives not made yet.
    case processing
    case ready
    /// It could not be decoded; the original is removed.
    case failed
}

/// How a photo reached the server (`X-Photo-Source`).
public enum PhotoSource: String, Sendable, Codable {
    case camera, library
    /// Drawn with a finger in the guestbook (SOC-1): a post like a note, counted as a shot only if the event says so.
    case drawing
}

/// What a post of the event feed is (SOC-1).
public enum PostKind: String, Sendable, Codable {
    /// An image: a photo, or a drawing (`source` says which).
    case photo
    /// A guestbook message: words only (`text`), no file.
    case note
    /// A short video (SOC-4): `urls.video` plays it, `durationSeconds` says how long.
    case video
}

/// A photo as the API shows it (gallery items, `GET /api/v1/photos/{id}`, upload answers, the change feed).
public struct PhotoJSON: Codable, Sendable, Equatable {
    public struct Shooter: Codable, Sendable, Equatable {
        public var name: String
        public var number: Int
        /// Their account's picture (SOC-5), when they have an account with one.
        public var avatarURL: String?

        public init(name: String, number: Int, avatarURL: String? = nil) {
            self.name = name
            self.number = number
            self.avatarURL = avatarURL
        }
    }

    /// The thumbnail and preview are signed links (no session needed, valid 12–24 h); the original is
    /// always checked against the session.
    public struct URLs: Codable, Sendable, Equatable {
        public var thumbnail: String
        public var preview: String
        public var original: String
        /// A video's web-playable copy (H.264/AAC MP4, at most 30 seconds).
        public var video: String?

        public init(thumbnail: String, preview: String, original: String, video: String? = nil) {
            self.thumbnail = thumbnail
            self.preview = preview
            self.original = original
            self.video = video
        }
    }

    public var id: String
    public var eventId: String
    public var shooter: Shooter
    public var takenAt: Date
    public var uploadedAt: Date
    public var width: Int?
    public var height: Int?
    public var byteSize: Int64
    public var format: String
    public var status: PhotoStatus
    /// False while it waits for the organizer's approval (ORG-4).
    public var approved: Bool
    public var source: PhotoSource
    public var sha256: String
    public var downloadName: String
    /// True for the caller's own photos.
    public var mine: Bool
    /// Absent for notes, which have no file.
    public var urls: URLs?
    /// The shooter's caption (SOC-1).
    public var caption: String?
    public var kind: PostKind
    /// A note's words.
    public var text: String?
    /// SOC-2: how many people like it (never who), and its comments.
    public var likeCount: Int
    public var commentCount: Int
    /// Whether the caller likes it; absent in the change feed (keep what you knew).
    public var likedByMe: Bool?
    /// A video's length, in whole seconds (rounded).
    public var durationSeconds: Int?
    /// True while only its thumbnail is made: `urls.preview` is then the thumbnail, and a
    /// `photo-updated` change brings the preview when it is ready. Absent otherwise.
    public var previewPending: Bool?
    /// True while the phone's first look stands in for both the thumbnail and the preview (`previewPending` is then
    /// true too); the server's own follow in a `photo-updated` change. Absent otherwise.
    public var firstLook: Bool?

    public init(
        id: String, eventId: String, shooter: Shooter, takenAt: Date, uploadedAt: Date, width: Int?, height: Int?,
        byteSize: Int64, format: String, status: PhotoStatus, approved: Bool, source: PhotoSource, sha256: String,
        downloadName: String, mine: Bool, urls: URLs?, caption: String? = nil, kind: PostKind = .photo, text: String? = nil,
        likeCount: Int = 0, commentCount: Int = 0, likedByMe: Bool? = nil, durationSeconds: Int? = nil, previewPending: Bool? = nil,
        firstLook: Bool? = nil
    ) {
        self.previewPending = previewPending
        self.firstLook = firstLook
        self.durationSeconds = durationSeconds
        self.caption = caption
        self.kind = kind
        self.text = text
        self.likeCount = likeCount
        self.commentCount = commentCount
        self.likedByMe = likedByMe
        self.id = id
        self.eventId = eventId
        self.shooter = shooter
        self.takenAt = takenAt
        self.uploadedAt = uploadedAt
        self.width = width
        self.height = height
        self.byteSize = byteSize
        self.format = format
        self.status = status
        self.approved = approved
        self.source = source
        self.sha256 = sha256
        self.downloadName = downloadName
        self.mine = mine
        self.urls = urls
    }
}

/// `GET /api/v1/events/{id}/photos`: one page of a gallery.
public struct GalleryPage: Codable, Sendable {
    public var items: [PhotoJSON]
    public var nextCursor: String?
    /// Whether the general gallery is open (GAL-2).
    public var revealed: Bool
    /// When it opens; only for events that reveal later.
    public var revealAt: Date?
    /// Photos waiting for the reveal; only while the gallery is closed.
    public var developingCount: Int?
    /// The change feed's position when this page was read: subscribe with `Last-Event-ID` = this.
    public var changeSeq: Int64

    public init(items: [PhotoJSON], nextCursor: String?, revealed: Bool, revealAt: Date?, developingCount: Int?, changeSeq: Int64) {
        self.items = items
        self.nextCursor = nextCursor
        self.revealed = revealed
        self.revealAt = revealAt
        self.developingCount = developingCount
        self.changeSeq = changeSeq
    }
}

/// `GET /api/v1/events/{id}/stats`: the organizer's numbers (ORG-2).
public struct EventStats: Codable, Sendable {
    public struct Shooter: Codable, Sendable {
        public var name: String
        public var photos: Int

        public init(name: String, photos: Int) {
            self.name = name
            self.photos = photos
        }
    }

    public struct Hour: Codable, Sendable {
        public var hour: Date
        public var photos: Int

        public init(hour: Date, photos: Int) {
            self.hour = hour
            self.photos = photos
        }
    }

    public var photos: Int
    /// ORG-4: photos waiting for the organizer's approval.
    public var awaitingApproval: Int
    public var guests: Int
    public var bytesStored: Int64
    public var photosPerGuest: [Shooter]
    public var uploadsPerHour: [Hour]
    /// Of `guests`, how many took at least one photo.
    public var guestsWhoShot: Int
    public var downloads: Downloads

    /// How often the event was downloaded: as a whole (ZIPs) and one original at a time.
    public struct Downloads: Codable, Sendable, Equatable {
        public var zips: Int
        public var originals: Int

        public init(zips: Int, originals: Int) {
            self.zips = zips
            self.originals = originals
        }
    }

    public init(
        photos: Int, awaitingApproval: Int, guests: Int, bytesStored: Int64, photosPerGuest: [Shooter], uploadsPerHour: [Hour],
        guestsWhoShot: Int = 0, downloads: Downloads = .init(zips: 0, originals: 0)
    ) {
        self.guestsWhoShot = guestsWhoShot
        self.downloads = downloads
        self.photos = photos
        self.awaitingApproval = awaitingApproval
        self.guests = guests
        self.bytesStored = bytesStored
        self.photosPerGuest = photosPerGuest
        self.uploadsPerHour = uploadsPerHour
    }
}

/// `POST /api/v1/events/{id}/photos/check`: which of these SHA-256 does the event have (UP-7)?
public struct HashCheckRequest: Codable, Sendable {
    public var sha256: [String]

    public init(sha256: [String]) {
        self.sha256 = sha256
    }
}

public struct HashCheckResult: Codable, Sendable {
    public var existing: [String]
    public var missing: [String]

    public init(existing: [String], missing: [String]) {
        self.existing = existing
        self.missing = missing
    }
}
