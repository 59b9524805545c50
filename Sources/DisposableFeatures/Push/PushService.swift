import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// The bell's notices also reach a phone whose page is closed (Web Push: RFC 8030, 8291, 8292). An account
/// or a guest subscribes its browsers from the bell; an account chooses which kinds on My account (a guest gets them
/// all, as its bell shows them all); every notice written anywhere is
/// taken by one instance's `PushSender` loop, worded in each browser's language and sent encrypted to its push service.
/// A subscription the push service says is gone (404, 410) is forgotten.
package struct PushService: Sendable {
    package let subscriptions: PushSubscriptions
    package let notifications: NotificationService
    package let profiles: ProfileService
    /// Push services are addressed by browsers, so by anyone: every message goes through the outbound rules.
    package let outbound: OutboundHTTP
    /// VAPID's `sub`: how the push service may reach whoever runs this server.
    package let contact: String
    package let clock: any AppClock
    package let logger: Logger

    package init(
        subscriptions: PushSubscriptions, notifications: NotificationService, profiles: ProfileService, outbound: OutboundHTTP, contact: String,
        clock: any AppClock, logger: Logger
    ) {
        self.subscriptions = subscriptions
        self.notifications = notifications
        self.profiles = profiles
        self.outbound = outbound
        self.contact = contact
        self.clock = clock
        self.logger = logger
    }

    package func settings(for owner: PushSubscriptions.Owner) async throws -> PushSettingsJSON {
        PushSettingsJSON(
            publicKey: WebPushMessage.base64URL(try await subscriptions.signingKey().publicKey.x963Representation),
            kinds: try await kinds(of: owner), devices: try await subscriptions.devices(owner))
    }

    package func subscribe(_ input: PushSubscriptionInput, for owner: PushSubscriptions.Owner, language: WebLanguage, device: String?) async throws
        -> PushDeviceJSON
    {
        try await subscriptions.subscribe(input, owner: owner, language: language, device: device, policy: outbound.policy)
    }

    package func remove(_ id: String, for owner: PushSubscriptions.Owner) async throws { try await subscriptions.remove(id, owner: owner) }

    package func setKinds(_ kinds: [String], for user: User) async throws -> PushSettingsJSON {
        try await subscriptions.setKinds(kinds, userID: user.id)
        return try await settings(for: .user(user.id))
    }

    /// A guest gets every kind, as its bell shows them all; an account, those it chose.
    private func kinds(of owner: PushSubscriptions.Owner) async throws -> [String] {
        guard case .user(let id) = owner else { return PushSubscriptions.allKinds }
        return try await subscriptions.kinds(userID: id)
    }

    // MARK: Sending

    /// Sends the notices written since the last call (each by one instance); says how many messages went out.
    @discardableResult
    package func sendDue() async throws -> Int {
        var sent = 0
        for due in try await notifications.forPush(limit: 100) {
            let targets = try await subscriptions.targets(accountID: due.accountID, guestID: due.guestID, kind: due.notice.kind.rawValue)
            guard !targets.isEmpty else { continue }
            let json = notifications.json(due.notice)
            var zone = TimeZone.gmt
            if let accountID = due.accountID, let own = try await profiles.timeZone(of: accountID).flatMap(TimeZone.init(identifier:)) {
                zone = own
            }
            for target in targets {
                if try await send(NoticeWords.words(json, language: target.language, zone: zone), to: target) { sent += 1 }
            }
        }
        return sent
    }

    /// One message to one browser; false when it did not go (logged; a gone subscription is forgotten).
    private func send(_ words: NoticeWords.Words, to target: PushSubscriptions.Subscription) async throws -> Bool {
        var payload = try JSONEncoder().encode(words)
        if payload.count > WebPushMessage.maxPayload {
            let shorter = NoticeWords.Words(title: words.title, body: String(words.body.prefix(300)) + "…", url: words.url, tag: words.tag)
            payload = try JSONEncoder().encode(shorter)
        }
        let authorization = try WebPushMessage.vapid(
            try await subscriptions.signingKey(), endpoint: target.endpoint, subject: contact, now: clock.now)
        let request = OutboundHTTP.Request(
            method: .POST, url: target.endpoint,
            headers: [
                ("TTL", "86400"), ("Urgency", "normal"), ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"),
                ("Authorization", authorization),
            ],
            body: try WebPushMessage.encrypt(payload, p256dh: target.p256dh, auth: target.auth))
        do {
            let response = try await outbound.send(request, maxBytes: 64 << 10, purpose: "push")
            switch response.status {
            case 200..<300: return true
            case 404, 410:
                try await subscriptions.forget(target.id)
                logger.info("A push subscription is gone: forgotten", metadata: ["subscription": "\(target.id)"])
            default:
                logger.warning("A push service refused a message", metadata: ["status": "\(response.status)"])
            }
        } catch {
            logger.warning("A push service could not be reached", metadata: ["subscription": "\(target.id)"])
        }
        return false
    }
}

/// Every few seconds, the notices written since: to the phones they are for.
package struct PushSender: Service {
    package let push: PushService
    package let started: StartupGate
    package let logger: Logger
    package var interval: Duration = .seconds(2)

    package init(push: PushService, started: StartupGate, logger: Logger, interval: Duration = .seconds(2)) {
        self.push = push
        self.started = started
        self.logger = logger
        self.interval = interval
    }

    package func run() async throws {
        await runPeriodically(started, logger: logger, every: interval, waitFirst: true, what: "Sending push notifications") {
            _ = try await push.sendDue()
        }
    }
}
