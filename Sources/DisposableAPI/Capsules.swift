import Foundation

/// CAP-2: a month of one's library in a few photos, released at the start of the next month where the owner lives.
public struct CapsuleJSON: Codable, Sendable, Equatable {
    /// `yyyy-mm`: the month it recaps (photos' own dates, as the library's timeline shows them).
    public var month: String
    /// When it was released (the start of the next month in the owner's time zone, or later).
    public var releasedAt: Date
    public var updatedAt: Date
    /// The chosen photos, in the order they were taken. A photo deleted since is left out.
    public var photos: [LibraryAssetJSON]
    /// The owner's own words; nil shows the app's line for the month.
    public var quote: String?
    public var song: Song?
    /// The collage of these photos (a JPEG, 1080 px wide), to share.
    public var collageURL: String?
    /// On the Story Board since then, for my friends to see.
    public var sharedAt: Date?
    /// The song's clip (AAC, at most 30 s), played when the capsule is viewed.
    public var clipURL: String?
    /// The moments the owner wrote that month, oldest first; absent when none.
    public var moments: [MomentJSON]?

    public struct Song: Codable, Sendable, Equatable {
        public var title: String
        public var artist: String?

        public init(title: String, artist: String?) {
            self.title = title
            self.artist = artist
        }
    }

    public init(
        month: String, releasedAt: Date, updatedAt: Date, photos: [LibraryAssetJSON], quote: String?, song: Song?, collageURL: String?,
        sharedAt: Date? = nil, clipURL: String? = nil, moments: [MomentJSON]? = nil
    ) {
        self.month = month
        self.releasedAt = releasedAt
        self.updatedAt = updatedAt
        self.photos = photos
        self.quote = quote
        self.song = song
        self.collageURL = collageURL
        self.sharedAt = sharedAt
        self.clipURL = clipURL
        self.moments = moments
    }
}

/// The history of capsules, newest first, and when the next one comes.
public struct CapsuleList: Codable, Sendable, Equatable {
    public var items: [CapsuleJSON]
    /// The start of next month in the owner's time zone: the countdown's end.
    public var nextCapsuleAt: Date
    public var timeZone: String

    public init(items: [CapsuleJSON], nextCapsuleAt: Date, timeZone: String) {
        self.items = items
        self.nextCapsuleAt = nextCapsuleAt
        self.timeZone = timeZone
    }
}

/// An edit of a capsule: any of its fields; what is not sent stays.
public struct CapsulePatch: Codable, Sendable {
    /// How many photos (1–24): the ones there stay, the selection adds the best of the month's others (never a
    /// near-copy of one there) or keeps the best of those there. With `photos`, applied to that list.
    public var count: Int?
    /// Exactly these photos of that month (library asset ids), replacing the choice.
    public var photos: [String]?
    /// Up to 280 characters; empty goes back to the app's line.
    public var quote: String?
    /// Up to 100 characters; empty removes the song.
    public var songTitle: String?
    public var songArtist: String?

    public init(count: Int? = nil, photos: [String]? = nil, quote: String? = nil, songTitle: String? = nil, songArtist: String? = nil) {
        self.count = count
        self.photos = photos
        self.quote = quote
        self.songTitle = songTitle
        self.songArtist = songArtist
    }
}

/// The month's photos a capsule may hold (its "replace" choices).
public struct CapsuleCandidates: Codable, Sendable, Equatable {
    public var items: [LibraryAssetJSON]

    public init(items: [LibraryAssetJSON]) { self.items = items }
}

/// CAP-2's Story Board: this month's capsules shared by my friends (and mine), to look at, react to and comment on.
public struct StoryBoard: Codable, Sendable, Equatable {
    /// The month on the board (`yyyy-mm`): last month where I live; the board starts again each month.
    public var month: String
    /// Newest share first.
    public var items: [SharedCapsule]

    public init(month: String, items: [SharedCapsule]) {
        self.month = month
        self.items = items
    }
}

/// A capsule on the Story Board, as its owner's friends see it.
public struct SharedCapsule: Codable, Sendable, Equatable {
    public struct Photo: Codable, Sendable, Equatable {
        public var id: String
        public var thumbnail: String
        public var preview: String

        public init(id: String, thumbnail: String, preview: String) {
            self.id = id
            self.thumbnail = thumbnail
            self.preview = preview
        }
    }

    public struct Comment: Codable, Sendable, Equatable {
        public var id: String
        public var authorName: String
        public var text: String
        public var createdAt: Date
        /// Its author or the capsule's owner may delete it.
        public var canDelete: Bool

        public init(id: String, authorName: String, text: String, createdAt: Date, canDelete: Bool) {
            self.id = id
            self.authorName = authorName
            self.text = text
            self.createdAt = createdAt
            self.canDelete = canDelete
        }
    }

    public var id: String
    public var month: String
    public var owner: FriendJSON
    public var mine: Bool
    public var sharedAt: Date
    public var quote: String?
    public var song: CapsuleJSON.Song?
    /// The song's clip, for friends too.
    public var clipURL: String?
    public var photos: [Photo]
    /// How many of each emoji.
    public var reactions: [String: Int]
    /// Mine, if I reacted.
    public var myReaction: String?
    public var comments: [Comment]

    public init(
        id: String, month: String, owner: FriendJSON, mine: Bool, sharedAt: Date, quote: String?, song: CapsuleJSON.Song?, clipURL: String? = nil,
        photos: [Photo], reactions: [String: Int], myReaction: String?, comments: [Comment]
    ) {
        self.id = id
        self.month = month
        self.owner = owner
        self.mine = mine
        self.sharedAt = sharedAt
        self.quote = quote
        self.song = song
        self.clipURL = clipURL
        self.photos = photos
        self.reactions = reactions
        self.myReaction = myReaction
        self.comments = comments
    }
}

public struct ReactionInput: Codable, Sendable {
    public var emoji: String

    public init(emoji: String) { self.emoji = emoji }
}

/// `GET /api/v1/me/scrobbler`: the scrobbler the capsule takes its song from. The API key is never sent back.
public struct ScrobblerJSON: Codable, Sendable, Equatable {
    /// `maloja`.
    public var kind: String
    public var url: String
    public var linkedAt: Date

    public init(kind: String, url: String, linkedAt: Date) {
        self.kind = kind
        self.url = url
        self.linkedAt = linkedAt
    }
}

/// `PUT /api/v1/me/scrobbler`: link a Maloja server (its address and an API key made in its settings).
public struct ScrobblerInput: Codable, Sendable {
    public var kind: String
    public var url: String
    public var apiKey: String

    public init(kind: String = "maloja", url: String, apiKey: String) {
        self.kind = kind
        self.url = url
        self.apiKey = apiKey
    }
}
