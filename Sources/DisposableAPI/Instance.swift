import Foundation

/// `GET /status`.
public struct ServerStatus: Codable, Sendable {
    public var version: String
    public var registrationEnabled: Bool

    public init(version: String, registrationEnabled: Bool) {
        self.version = version
        self.registrationEnabled = registrationEnabled
    }
}

/// `GET /healthz` when everything answers.
public struct Health: Codable, Sendable {
    public var status: String
    public var database: String
    public var storage: String

    public init(status: String, database: String, storage: String) {
        self.status = status
        self.database = database
        self.storage = storage
    }
}

/// What was deleted when (RET-3): ids, times and counts, no content.
public struct DeletionRecord: Codable, Sendable {
    public var eventId: String
    public var organizerId: String
    public var reason: String
    public var endedAt: Date
    public var deletedAt: Date
    public var photoCount: Int
    public var byteCount: Int64

    public init(eventId: String, organizerId: String, reason: String, endedAt: Date, deletedAt: Date, photoCount: Int, byteCount: Int64) {
        self.eventId = eventId
        self.organizerId = organizerId
        self.reason = reason
        self.endedAt = endedAt
        self.deletedAt = deletedAt
        self.photoCount = photoCount
        self.byteCount = byteCount
    }
}

public struct DeletionRecordList: Codable, Sendable {
    public var items: [DeletionRecord]

    public init(items: [DeletionRecord]) {
        self.items = items
    }
}
