import Foundation

/// `GET /api/v1/push`: what a page needs to subscribe a phone to notifications, and my choices.
public struct PushSettingsJSON: Codable, Sendable, Equatable {
    /// The server's VAPID public key (base64url, uncompressed P-256 point): `applicationServerKey`.
    public var publicKey: String
    /// The kinds of notice sent to my phones (`NotificationJSON.Kind` raw values).
    public var kinds: [String]
    /// My subscribed browsers, newest first.
    public var devices: [PushDeviceJSON]

    public init(publicKey: String, kinds: [String], devices: [PushDeviceJSON]) {
        self.publicKey = publicKey
        self.kinds = kinds
        self.devices = devices
    }
}

public struct PushDeviceJSON: Codable, Sendable, Equatable {
    public var id: String
    /// "Chrome on Android", as the subscribing browser said.
    public var device: String?
    public var createdAt: Date

    public init(id: String, device: String?, createdAt: Date) {
        self.id = id
        self.device = device
        self.createdAt = createdAt
    }
}

/// `POST /api/v1/push/subscriptions`: a browser's `PushSubscription.toJSON()`.
public struct PushSubscriptionInput: Codable, Sendable {
    public struct Keys: Codable, Sendable {
        public var p256dh: String
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public var endpoint: String
    public var expirationTime: Double?
    public var keys: Keys

    public init(endpoint: String, expirationTime: Double? = nil, keys: Keys) {
        self.endpoint = endpoint
        self.expirationTime = expirationTime
        self.keys = keys
    }
}

/// `PUT /api/v1/push/kinds`.
public struct PushKindsInput: Codable, Sendable {
    public var kinds: [String]

    public init(kinds: [String]) { self.kinds = kinds }
}
