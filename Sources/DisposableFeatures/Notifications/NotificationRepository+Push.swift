import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

extension NotificationRepository {
    /// Notices not yet handed to the push sender, oldest first, marked handed over as they are taken (so that one
    /// instance takes each), with whom each is for: the account (a notice to a guest goes to the account that guest
    /// is, if any) and the guest.
    package func claimUnpushed(limit: Int, now: Date) async throws -> [PushRecipient] {
        try await database.transaction { db in
            let waiting = try await db.raw(
                "SELECT id FROM notifications WHERE pushed_at IS NULL ORDER BY created_at, id LIMIT \(unsafeRaw: String(limit))"
            ).all().map { try $0.decode(column: "id", as: String.self) }
            guard !waiting.isEmpty else { return [] }
            let claimed = try await db.raw(
                "UPDATE notifications SET pushed_at = \(bind: now.millisecondsSince1970) WHERE id IN (\(binds: waiting)) AND pushed_at IS NULL RETURNING id"
            ).all().map { try $0.decode(column: "id", as: String.self) }
            guard !claimed.isEmpty else { return [] }
            return try await db.raw(
                """
                SELECT n.*, e.name AS event_name, e.code AS event_code, e.ends_at AS event_ends_at, COALESCE(g.user_id, u.id) AS account_id,
                    g.id AS guest_id
                FROM notifications n LEFT JOIN events e ON e.id = n.event_id LEFT JOIN guests g ON g.id = n.recipient_id
                    LEFT JOIN users u ON u.id = n.recipient_id
                WHERE n.id IN (\(binds: claimed))
                ORDER BY n.created_at, n.id
                """
            ).all().map { row in
                PushRecipient(
                    notice: try Self.notice(from: row), accountID: try row.decode(column: "account_id", as: String?.self),
                    guestID: try row.decode(column: "guest_id", as: String?.self))
            }
        }
    }
}

/// A notice for the push sender, and whose browsers it goes to.
package struct PushRecipient: Sendable {
    let notice: NotificationRepository.Notice
    package let accountID: String?
    package let guestID: String?

    init(notice: NotificationRepository.Notice, accountID: String?, guestID: String?) {
        self.notice = notice
        self.accountID = accountID
        self.guestID = guestID
    }
}

extension NotificationService {
    /// The notices not yet sent to phones, each taken once (`PushService`).
    package func forPush(limit: Int) async throws -> [PushRecipient] {
        try await rows.claimUnpushed(limit: limit, now: clock.now)
    }
}
