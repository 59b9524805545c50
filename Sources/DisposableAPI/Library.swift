import Foundation

/// The last thing that happened to a library asset (LIB-4): the raw values are the feed's `kind`.
public enum LibraryChangeKind: String, Sendable, Codable {
    case added, updated, trashed, restored, deleted
}

/// One asset of a user's own library (LIB-1), as the API shows it.
public struct LibraryAssetJSON: Codable, Sendable, Equatable {
    /// The session-checked links to its bytes: the original as sent, and its two derivatives once `ready`.
    public struct URLs: Codable, Sendable, Equatable {
        public var thumbnail: String
        public var preview: String
        public var original: String
        /// A live photo's motion (LIB-3): a Google motion photo's MP4, or an Apple Live Photo's video; for a video,
        /// a copy browsers play (or the original, when they play that as it is), once `ready`.
        public var video: String?

        public init(thumbnail: String, preview: String, original: String, video: String? = nil) {
            self.thumbnail = thumbnail
            self.preview = preview
            self.original = original
            self.video = video
        }
    }

    public var id: String
    /// Capture time: EXIF, else `X-Taken-At`, else the upload time.
    public var takenAt: Date
    /// The clock where it was taken, `2023-05-14T18:30:00` (no zone), when the file said: show this, not `takenAt`
    /// in the reader's zone.
    public var takenAtLocal: String?
    /// That clock's offset from UTC, `+09:00`; absent when the file gave none (a floating time: no zone is invented).
    public var takenAtOffset: String?
    /// `2023-05`: the timeline's month divider it falls under (where it was taken when known, else UTC).
    public var month: String
    public var uploadedAt: Date
    public var width: Int?
    public var height: Int?
    public var byteSize: Int64
    public var format: String
    /// `photo` or `video`.
    public var mediaType: String
    /// A video's length in seconds, once `ready`.
    public var durationSeconds: Double?
    public var status: PhotoStatus
    public var sha256: String
    /// The name it was sent with, or one made from its capture time.
    public var fileName: String
    /// Grows by one with each edit (`PUT …/original`).
    public var fileRevision: Int
    /// Its place in the library's change feed: the revision of its last change.
    public var revision: Int64
    /// Set while it is in the trash; purged 30 days later.
    public var trashedAt: Date?
    /// The words it came with (an Instagram post's caption), if any.
    public var caption: String?
    public var urls: URLs

    public init(
        id: String, takenAt: Date, month: String, uploadedAt: Date, width: Int?, height: Int?, byteSize: Int64, format: String,
        mediaType: String = "photo", durationSeconds: Double? = nil, status: PhotoStatus, sha256: String, fileName: String, fileRevision: Int,
        revision: Int64, trashedAt: Date?, caption: String? = nil, urls: URLs, takenAtLocal: String? = nil, takenAtOffset: String? = nil
    ) {
        self.id = id
        self.takenAt = takenAt
        self.takenAtLocal = takenAtLocal
        self.takenAtOffset = takenAtOffset
        self.month = month
        self.uploadedAt = uploadedAt
        self.width = width
        self.height = height
        self.byteSize = byteSize
        self.format = format
        self.mediaType = mediaType
        self.durationSeconds = durationSeconds
        self.status = status
        self.sha256 = sha256
        self.fileName = fileName
        self.fileRevision = fileRevision
        self.revision = revision
        self.trashedAt = trashedAt
        self.caption = caption
        self.urls = urls
    }
}

/// A page of the timeline or of the trash: newest capture first (the trash: latest deleted first).
public struct LibraryPage: Codable, Sendable {
    public var items: [LibraryAssetJSON]
    public var nextCursor: String?

    public init(items: [LibraryAssetJSON], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// One entry of the library's change feed: an asset's state at `revision`. An asset appears once, at its latest
/// revision; a client that applies the entries in order ends in step with the server.
public struct LibraryChange: Codable, Sendable {
    public var revision: Int64
    public var kind: LibraryChangeKind
    public var assetId: String
    /// Absent for `deleted` (the asset and its files are gone).
    public var asset: LibraryAssetJSON?

    public init(revision: Int64, kind: LibraryChangeKind, assetId: String, asset: LibraryAssetJSON?) {
        self.revision = revision
        self.kind = kind
        self.assetId = assetId
        self.asset = asset
    }
}

/// `GET /api/v1/library/changes?since=N`: entries after `since`; ask again with `since` = `next` until `hasMore` is false.
public struct LibraryChangesPage: Codable, Sendable {
    public var items: [LibraryChange]
    public var next: Int64
    public var hasMore: Bool

    public init(items: [LibraryChange], next: Int64, hasMore: Bool) {
        self.items = items
        self.next = next
        self.hasMore = hasMore
    }
}

/// `DELETE /api/v1/library/trash`: how many assets were removed for good.
public struct TrashEmptied: Codable, Sendable {
    public var deleted: Int

    public init(deleted: Int) {
        self.deleted = deleted
    }
}
