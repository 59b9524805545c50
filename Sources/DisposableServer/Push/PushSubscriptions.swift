import Crypto
import DisposableAPI
import Foundation
import SQLKit

/// The browsers an account or a guest subscribed to their notifications (Web Push), an account's choice of
/// kinds, and the server's VAPID key — made at first use, kept in `instance_settings`, the same for every instance.
struct PushSubscriptions: Sendable {
    let database: any DatabaseEngine
    let clock: any AppClock

    /// Browsers per account: phones, tablets and computers, with room to spare; a guest has a phone or two.
    static let maxPerUser = 20
    static let maxPerGuest = 5
    static let maxEndpoint = 1_000

    /// Whose notices a browser gets: an account's, or a guest's (who may have none).
    enum Owner: Sendable, Equatable {
        case user(String)
        case guest(String)

        /// Whoever asks: the account signed in, or the guest.
        init(_ identity: Identity) {
            switch identity {
            case .user(let user, _): self = .user(user.id)
            case .guest(let guest, _): self = .guest(guest.id)
            }
        }

        var column: String {
            switch self {
            case .user: "user_id"
            case .guest: "guest_id"
            }
        }

        var id: String {
            switch self {
            case .user(let id), .guest(let id): id
            }
        }

        var limit: Int {
            switch self {
            case .user: PushSubscriptions.maxPerUser
            case .guest: PushSubscriptions.maxPerGuest
            }
        }
    }

    struct Subscription: Sendable {
        let id: String
        let endpoint: URL
        let p256dh: Data
        let auth: Data
        let language: WebLanguage
    }

    // MARK: The key

    func signingKey() async throws -> P256.Signing.PrivateKey {
        if let key = try await storedKey() { return key }
        let made = P256.Signing.PrivateKey()
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO instance_settings (key, value) VALUES ('vapid_private_key', \(bind: WebPushMessage.base64URL(made.rawRepresentation)))
                ON CONFLICT (key) DO NOTHING
                """
            ).run()
        }
        // Another instance may have made one first: theirs is everyone's.
        guard let key = try await storedKey() else { throw ConfigurationError("The VAPID key could not be kept.") }
        return key
    }

    private func storedKey() async throws -> P256.Signing.PrivateKey? {
        try await database.read { db in
            guard let row = try await db.raw("SELECT value FROM instance_settings WHERE key = 'vapid_private_key'").first(),
                let raw = WebPushMessage.fromBase64URL(try row.decode(column: "value", as: String.self))
            else { return nil }
            return try P256.Signing.PrivateKey(rawRepresentation: raw)
        }
    }

    // MARK: Subscriptions

    func subscribe(_ input: PushSubscriptionInput, owner: Owner, language: WebLanguage, device: String?, policy: AddressPolicy) async throws
        -> PushDeviceJSON
    {
        let endpoint = try Self.endpoint(input.endpoint, policy: policy)
        guard let p256dh = WebPushMessage.fromBase64URL(input.keys.p256dh), (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil
        else { throw Problem.invalidField("keys.p256dh", "keys.p256dh is the browser's P-256 public key, base64url-encoded.") }
        guard let auth = WebPushMessage.fromBase64URL(input.keys.auth), auth.count == 16 else {
            throw Problem.invalidField("keys.auth", "keys.auth is the browser's 16-byte secret, base64url-encoded.")
        }
        let device = PushDeviceJSON(id: newID(), device: device, createdAt: Date(millisecondsSince1970: clock.now.millisecondsSince1970))
        try await database.transaction { db in
            // The same browser again (or passed to another account on a shared computer): its latest subscription wins.
            try await db.raw("DELETE FROM push_subscriptions WHERE endpoint = \(bind: endpoint.absoluteString)").run()
            let count = try await db.raw(
                "SELECT COUNT(*) AS n FROM push_subscriptions WHERE \(unsafeRaw: owner.column) = \(bind: owner.id)"
            ).first()!.decode(column: "n", as: Int.self)
            guard count < owner.limit else {
                throw Problem(
                    .conflict, "too-many-devices", title: "Too many devices",
                    detail: "Notifications go to at most \(owner.limit) browsers: remove one first.")
            }
            try await db.raw(
                """
                INSERT INTO push_subscriptions (id, \(unsafeRaw: owner.column), endpoint, p256dh, auth, language, device, created_at)
                VALUES (\(bind: device.id), \(bind: owner.id), \(bind: endpoint.absoluteString), \(bind: WebPushMessage.base64URL(p256dh)),
                        \(bind: WebPushMessage.base64URL(auth)), \(bind: language.rawValue), \(bind: device.device),
                        \(bind: device.createdAt.millisecondsSince1970))
                """
            ).run()
        }
        return device
    }

    /// A push service's address: https, a public server's name (the tests' push service runs on this machine, over
    /// http, under the test-only loopback exception). A name is not looked up here: it is, at each message.
    static func endpoint(_ raw: String, policy: AddressPolicy) throws -> URL {
        guard raw.utf8.count <= maxEndpoint, let url = URL(string: raw), url.scheme == "https" || policy.allowsLoopback,
            policy.check(url) == nil
        else { throw Problem.invalidField("endpoint", "endpoint is the push service's https address the browser gave, on a public server.") }
        return url
    }

    func remove(_ id: String, owner: Owner) async throws {
        let gone = try await database.transaction { db in
            try await db.raw(
                "DELETE FROM push_subscriptions WHERE id = \(bind: id) AND \(unsafeRaw: owner.column) = \(bind: owner.id) RETURNING id"
            ).first() != nil
        }
        guard gone else { throw Problem.notFound("There is no such device among yours.") }
    }

    /// The push service said the subscription is gone (404, 410).
    func forget(_ id: String) async throws {
        try await database.transaction { db in try await db.raw("DELETE FROM push_subscriptions WHERE id = \(bind: id)").run() }
    }

    func devices(_ owner: Owner) async throws -> [PushDeviceJSON] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT id, device, created_at FROM push_subscriptions WHERE \(unsafeRaw: owner.column) = \(bind: owner.id)
                ORDER BY created_at DESC, id
                """
            ).all().map { row in
                PushDeviceJSON(
                    id: try row.decode(column: "id", as: String.self), device: try row.decode(column: "device", as: String?.self),
                    createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
            }
        }
    }

    // MARK: Kinds

    static let allKinds: [String] = NotificationJSON.Kind.allCases.map(\.rawValue)

    func kinds(userID: String) async throws -> [String] {
        let stored = try await database.read { db in
            try await db.raw("SELECT push_kinds FROM users WHERE id = \(bind: userID)").first()?.decode(column: "push_kinds", as: String?.self)
        }
        guard let stored, let kinds = try? JSONDecoder().decode([String].self, from: Data(stored.utf8)) else { return Self.allKinds }
        return Self.allKinds.filter(kinds.contains)
    }

    func setKinds(_ kinds: [String], userID: String) async throws {
        guard kinds.count <= Self.allKinds.count, kinds.allSatisfy(Self.allKinds.contains) else {
            throw Problem.invalidField("kinds", "kinds lists notice kinds among: \(Self.allKinds.joined(separator: ", ")).")
        }
        let text = String(decoding: try JSONEncoder().encode(Self.allKinds.filter(kinds.contains)), as: UTF8.self)
        try await database.transaction { db in try await db.raw("UPDATE users SET push_kinds = \(bind: text) WHERE id = \(bind: userID)").run() }
    }

    /// The browsers a notice of `kind` goes to: its account's (if it chose that kind) and, for a notice to a guest,
    /// the guest's own.
    func targets(accountID: String?, guestID: String?, kind: String) async throws -> [Subscription] {
        if let accountID, try await !kinds(userID: accountID).contains(kind) { return [] }
        return try await database.read { db in
            try await db.raw(
                "SELECT * FROM push_subscriptions WHERE user_id = \(bind: accountID ?? "") OR guest_id = \(bind: guestID ?? "")"
            ).all().compactMap { row in
                guard let endpoint = URL(string: try row.decode(column: "endpoint", as: String.self)),
                    let p256dh = WebPushMessage.fromBase64URL(try row.decode(column: "p256dh", as: String.self)),
                    let auth = WebPushMessage.fromBase64URL(try row.decode(column: "auth", as: String.self))
                else { return nil }
                return Subscription(
                    id: try row.decode(column: "id", as: String.self), endpoint: endpoint, p256dh: p256dh, auth: auth,
                    language: WebLanguage(rawValue: try row.decode(column: "language", as: String.self)) ?? .en)
            }
        }
    }
}
