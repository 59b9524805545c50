import DisposableAPI
import Foundation

/// SOC-3: what a person is told — a like or a comment on their post, the photos revealed, an event about to be
/// deleted — across every event they are in, read and marked read from one place.
struct NotificationService: Sendable {
    let rows: NotificationRepository
    /// Wakes the streams on this instance when a notification is written here (key `Self.anyone`).
    let bell: StreamWaker
    let clock: any AppClock
    let retention: TimeInterval

    static let anyone = "*"
    static let maxIDs = 500

    func page(cursor raw: String?, limit: Int, for identity: Identity?) async throws -> NotificationPage {
        guard let identity else { throw Problem.unauthorized }
        let recipients = try await rows.recipients(of: identity)
        let cursor = try raw.map { raw in
            guard let cursor = NotificationRepository.Cursor(token: raw) else {
                throw Problem.invalidField("cursor", "This cursor is not one we gave out; start again without it.")
            }
            return cursor
        }
        let page = try await rows.page(for: recipients, before: cursor, limit: limit)
        return NotificationPage(
            items: page.items.map(json), unreadCount: try await rows.unreadCount(for: recipients), nextCursor: page.next?.token)
    }

    func markRead(_ input: NotificationsRead, for identity: Identity?) async throws -> UnreadCount {
        guard let identity else { throw Problem.unauthorized }
        if let ids = input.ids {
            guard ids.count <= Self.maxIDs, ids.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else {
                throw Problem.invalidField("ids", "ids is a list of at most \(Self.maxIDs) notification ids.")
            }
        }
        let recipients = try await rows.recipients(of: identity)
        try await rows.markRead(input.ids, for: recipients, now: clock.now)
        await bell.changed(Self.anyone)
        return UnreadCount(unreadCount: try await rows.unreadCount(for: recipients))
    }

    func json(_ notice: NotificationRepository.Notice) -> NotificationJSON {
        NotificationJSON(
            id: notice.id, kind: notice.kind, eventId: notice.event?.id, eventName: notice.event?.name, eventCode: notice.event?.code,
            photoId: notice.photoID, actorName: notice.actorName, text: notice.text,
            deletesAt: notice.kind == .endingSoon ? notice.event.map { $0.endsAt + retention } : nil, createdAt: notice.createdAt, read: notice.read,
            period: notice.period)
    }
}
