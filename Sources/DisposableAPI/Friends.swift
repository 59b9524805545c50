import Foundation

/// Another account as a friend sees it: name, username and picture, never the e-mail address.
public struct FriendJSON: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var username: String?
    public var avatarURL: String?
    /// When the request was made, or accepted for a friend.
    public var since: Date

    public init(id: String, name: String, username: String?, avatarURL: String?, since: Date) {
        self.id = id
        self.name = name
        self.username = username
        self.avatarURL = avatarURL
        self.since = since
    }
}

/// `GET /api/v1/friends`: my friends, the requests waiting for my answer, and mine waiting for theirs.
public struct FriendList: Codable, Sendable, Equatable {
    public var friends: [FriendJSON]
    public var incoming: [FriendJSON]
    public var outgoing: [FriendJSON]

    public init(friends: [FriendJSON], incoming: [FriendJSON], outgoing: [FriendJSON]) {
        self.friends = friends
        self.incoming = incoming
        self.outgoing = outgoing
    }
}

/// A friend request: the other account's username, or its e-mail address.
public struct FriendRequest: Codable, Sendable {
    public var username: String?
    public var email: String?

    public init(username: String? = nil, email: String? = nil) {
        self.username = username
        self.email = email
    }
}

/// What a request became: `pending` (they will be asked), or `accepted` (they had asked me already). A request by
/// e-mail address names nobody until it is accepted: `friend` is then absent, whether or not the address is known.
public struct FriendRequestResult: Codable, Sendable, Equatable {
    public var status: String
    public var friend: FriendJSON?

    public init(status: String, friend: FriendJSON?) {
        self.status = status
        self.friend = friend
    }
}
