import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `push_subscriptions` table, an account's chosen kinds (on `users`) and the push key (in the instance's
/// settings): `PushSubscriptions` holds the rules.
struct PushSubscriptionRepository: Sendable {
    package let database: Database

    /// The server's VAPID key as stored (base64url), after storing `candidate` if none was (nil: only read).
    package func vapidKey(candidate: String?) async throws -> String? {
        try await database.sql { db in
            if let candidate { try await InstanceSettingsRepository.keep("vapid_private_key", candidate: candidate, in: db) }
            return try await InstanceSettingsRepository.value("vapid_private_key", in: db)
        }
    }

    /// Stores a browser's subscription, replacing any of the same endpoint; false when the owner has `owner.limit`.
    package func insert(
        _ device: PushDeviceJSON, owner: PushSubscriptions.Owner, endpoint: String, p256dh: String, auth: String, language: String
    ) async throws -> Bool {
        try await database.transaction { db in
            // The same browser again (or passed to another account on a shared computer): its latest subscription wins.
            try await db.raw("DELETE FROM push_subscriptions WHERE endpoint = \(bind: endpoint)").run()
            let count = try await db.raw(
                "SELECT COUNT(*) AS n FROM push_subscriptions WHERE \(unsafeRaw: owner.column) = \(bind: owner.id)"
            ).first()!.decode(column: "n", as: Int.self)
            guard count < owner.limit else { return false }
            try await db.raw(
                """
                INSERT INTO push_subscriptions (id, \(unsafeRaw: owner.column), endpoint, p256dh, auth, language, device, created_at)
                VALUES (\(bind: device.id), \(bind: owner.id), \(bind: endpoint), \(bind: p256dh), \(bind: auth), \(bind: language),
                        \(bind: device.device), \(bind: device.createdAt.millisecondsSince1970))
                """
            ).run()
            return true
        }
    }

    /// Removes one of the owner's browsers; false when it is not theirs.
    package func remove(_ id: String, owner: PushSubscriptions.Owner) async throws -> Bool {
        try await database.sql { db in
            try await db.raw(
                "DELETE FROM push_subscriptions WHERE id = \(bind: id) AND \(unsafeRaw: owner.column) = \(bind: owner.id) RETURNING id"
            ).first() != nil
        }
    }

    package func forget(_ id: String) async throws {
        try await database.sql { db in try await db.raw("DELETE FROM push_subscriptions WHERE id = \(bind: id)").run() }
    }

    package func devices(_ owner: PushSubscriptions.Owner) async throws -> [PushDeviceJSON] {
        try await database.read { db in try await Self.devices(owner, in: db) }
    }

    /// The owner's browsers, newest first (also read by the data export).
    package static func devices(_ owner: PushSubscriptions.Owner, in db: any SQLDatabase) async throws -> [PushDeviceJSON] {
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

    /// The kinds an account chose, as stored (JSON), or nil.
    package func kinds(userID: String) async throws -> String? {
        try await database.read { db in
            try await db.raw("SELECT kinds FROM push_settings WHERE user_id = \(bind: userID)").first()?.decode(column: "kinds", as: String.self)
        }
    }

    package func setKinds(_ json: String, userID: String) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO push_settings (user_id, kinds) VALUES (\(bind: userID), \(bind: json))
                ON CONFLICT (user_id) DO UPDATE SET kinds = excluded.kinds
                """
            ).run()
        }
    }

    /// The browsers of an account or a guest.
    package func subscriptions(accountID: String?, guestID: String?) async throws -> [PushSubscriptions.Subscription] {
        try await database.read { db in
            try await db.raw(
                "SELECT * FROM push_subscriptions WHERE user_id = \(bind: accountID ?? "") OR guest_id = \(bind: guestID ?? "")"
            ).all().compactMap { row in
                guard let endpoint = URL(string: try row.decode(column: "endpoint", as: String.self)),
                    let p256dh = WebPushMessage.fromBase64URL(try row.decode(column: "p256dh", as: String.self)),
                    let auth = WebPushMessage.fromBase64URL(try row.decode(column: "auth", as: String.self))
                else { return nil }
                return PushSubscriptions.Subscription(
                    id: try row.decode(column: "id", as: String.self), endpoint: endpoint, p256dh: p256dh, auth: auth,
                    language: WebLanguage(rawValue: try row.decode(column: "language", as: String.self)) ?? .en)
            }
        }
    }
}
