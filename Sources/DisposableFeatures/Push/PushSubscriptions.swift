import Crypto
import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// The browsers an account or a guest subscribed to their notifications (Web Push), an account's choice of
/// kinds, and the server's VAPID key — made at first use, kept in the instance's settings, the same for every instance.
package struct PushSubscriptions: Sendable {
    let rows: PushSubscriptionRepository
    package let clock: any AppClock

    init(rows: PushSubscriptionRepository, clock: any AppClock) {
        self.rows = rows
        self.clock = clock
    }

    /// Browsers per account: phones, tablets and computers, with room to spare; a guest has a phone or two.
    package static let maxPerUser = 20
    package static let maxPerGuest = 5
    package static let maxEndpoint = 1_000

    /// Whose notices a browser gets: an account's, or a guest's (who may have none).
    package enum Owner: Sendable, Equatable {
        case user(String)
        case guest(String)

        /// Whoever asks: the account signed in, or the guest.
        package init(_ identity: Identity) {
            switch identity {
            case .user(let user, _): self = .user(user.id)
            case .guest(let guest, _): self = .guest(guest.id)
            }
        }

        package var column: String {
            switch self {
            case .user: "user_id"
            case .guest: "guest_id"
            }
        }

        package var id: String {
            switch self {
            case .user(let id), .guest(let id): id
            }
        }

        package var limit: Int {
            switch self {
            case .user: PushSubscriptions.maxPerUser
            case .guest: PushSubscriptions.maxPerGuest
            }
        }
    }

    package struct Subscription: Sendable {
        package let id: String
        package let endpoint: URL
        package let p256dh: Data
        package let auth: Data
        package let language: WebLanguage
    }

    // MARK: The key

    package func signingKey() async throws -> P256.Signing.PrivateKey {
        if let key = try await rows.vapidKey(candidate: nil).flatMap(Self.key) { return key }
        // Another instance may have made one first: theirs is everyone's.
        let made = WebPushMessage.base64URL(P256.Signing.PrivateKey().rawRepresentation)
        guard let key = try await rows.vapidKey(candidate: made).flatMap(Self.key) else {
            throw ConfigurationError("The VAPID key could not be kept.")
        }
        return key
    }

    private static func key(_ stored: String) -> P256.Signing.PrivateKey? {
        WebPushMessage.fromBase64URL(stored).flatMap { try? P256.Signing.PrivateKey(rawRepresentation: $0) }
    }

    // MARK: Subscriptions

    package func subscribe(_ input: PushSubscriptionInput, owner: Owner, language: WebLanguage, device: String?, policy: AddressPolicy) async throws
        -> PushDeviceJSON
    {
        let endpoint = try Self.endpoint(input.endpoint, policy: policy)
        guard let p256dh = WebPushMessage.fromBase64URL(input.keys.p256dh), (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil
        else { throw Problem.invalidField("keys.p256dh", "keys.p256dh is the browser's P-256 public key, base64url-encoded.") }
        guard let auth = WebPushMessage.fromBase64URL(input.keys.auth), auth.count == 16 else {
            throw Problem.invalidField("keys.auth", "keys.auth is the browser's 16-byte secret, base64url-encoded.")
        }
        let device = PushDeviceJSON(id: newID(), device: device, createdAt: Date(millisecondsSince1970: clock.now.millisecondsSince1970))
        let kept = try await rows.insert(
            device, owner: owner, endpoint: endpoint.absoluteString, p256dh: WebPushMessage.base64URL(p256dh),
            auth: WebPushMessage.base64URL(auth), language: language.rawValue)
        guard kept else {
            throw Problem(
                .conflict, "too-many-devices", title: "Too many devices",
                detail: "Notifications go to at most \(owner.limit) browsers: remove one first.")
        }
        return device
    }

    /// A push service's address: https, a public server's name (the tests' push service runs on this machine, over
    /// http, under the test-only loopback exception). A name is not looked up here: it is, at each message.
    package static func endpoint(_ raw: String, policy: AddressPolicy) throws -> URL {
        guard raw.utf8.count <= maxEndpoint, let url = URL(string: raw), url.scheme == "https" || policy.allowsLoopback,
            policy.check(url) == nil
        else { throw Problem.invalidField("endpoint", "endpoint is the push service's https address the browser gave, on a public server.") }
        return url
    }

    package func remove(_ id: String, owner: Owner) async throws {
        let gone = try await rows.remove(id, owner: owner)
        guard gone else { throw Problem.notFound("There is no such device among yours.") }
    }

    /// The push service said the subscription is gone (404, 410).
    package func forget(_ id: String) async throws {
        try await rows.forget(id)
    }

    package func devices(_ owner: Owner) async throws -> [PushDeviceJSON] {
        try await rows.devices(owner)
    }

    // MARK: Kinds

    package static let allKinds: [String] = NotificationJSON.Kind.allCases.map(\.rawValue)

    package func kinds(userID: String) async throws -> [String] {
        let stored = try await rows.kinds(userID: userID)
        guard let stored, let kinds = try? JSONDecoder().decode([String].self, from: Data(stored.utf8)) else { return Self.allKinds }
        return Self.allKinds.filter(kinds.contains)
    }

    package func setKinds(_ kinds: [String], userID: String) async throws {
        guard kinds.count <= Self.allKinds.count, kinds.allSatisfy(Self.allKinds.contains) else {
            throw Problem.invalidField("kinds", "kinds lists notice kinds among: \(Self.allKinds.joined(separator: ", ")).")
        }
        let text = String(decoding: try JSONEncoder().encode(Self.allKinds.filter(kinds.contains)), as: UTF8.self)
        try await rows.setKinds(text, userID: userID)
    }

    /// The browsers a notice of `kind` goes to: its account's (if it chose that kind) and, for a notice to a guest,
    /// the guest's own.
    package func targets(accountID: String?, guestID: String?, kind: String) async throws -> [Subscription] {
        if let accountID, try await !kinds(userID: accountID).contains(kind) { return [] }
        return try await rows.subscriptions(accountID: accountID, guestID: guestID)
    }
}
