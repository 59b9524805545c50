import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// SOC-3: what a person is told — a like or a comment on their post, the photos revealed, an event about to be
/// deleted — across every event they are in, read and marked read from one place.
package struct NotificationService: Sendable {
    let rows: NotificationRepository
    /// Wakes the streams on this instance when a notification is written here (key `Self.anyone`).
    package let bell: StreamWaker
    package let clock: any AppClock
    package let retention: TimeInterval

    init(rows: NotificationRepository, bell: StreamWaker, clock: any AppClock, retention: TimeInterval) {
        self.rows = rows
        self.bell = bell
        self.clock = clock
        self.retention = retention
    }

    package static let anyone = "*"
    package static let maxIDs = 500

    package func page(cursor raw: String?, limit: Int, for identity: Identity?, reader: NoticeWords.Reader) async throws -> NotificationPage {
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
            items: page.items.map { json($0, for: reader) }, unreadCount: try await rows.unreadCount(for: recipients), nextCursor: page.next?.token)
    }

    /// A live stream of `identity`'s notices after `resume` (its Last-Event-ID), or from now.
    package func liveSource(
        for identity: Identity, reader: NoticeWords.Reader, resume: String?, stillValid: @escaping @Sendable () async throws -> Bool
    ) async throws -> NoticeSource {
        let recipients = try await rows.recipients(of: identity)
        var start = try await rows.latest(for: recipients)
        if let resumed = resume.flatMap(NotificationRepository.Cursor.init(token:)) { start = resumed }
        return NoticeSource(notifications: self, recipients: recipients, reader: reader, last: start, stillValid: stillValid)
    }

    package func markRead(_ input: NotificationsRead, for identity: Identity?) async throws -> UnreadCount {
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

    /// The notice with its sentence and page for `reader`: worded here once, for the bell, the API and phones alike.
    func json(_ notice: NotificationRepository.Notice, for reader: NoticeWords.Reader) -> NotificationJSON {
        var json = json(notice)
        let words = NoticeWords.words(json, language: reader.language, zone: reader.zone)
        json.message = words.body
        json.link = words.url
        return json
    }
}

/// The bell's live stream: new notices as they come, and the unread count as it moves.
package struct NoticeSource: EventStreamSource {
    package let notifications: NotificationService
    package let recipients: [String]
    package let reader: NoticeWords.Reader
    var last: NotificationRepository.Cursor
    package var unread = -1
    package let stillValid: @Sendable () async throws -> Bool
    /// The session's newest streams win (`NotificationStreams`): this one ends once it is no longer among them.
    package var slot: NotificationStreams.Stream?

    init(
        notifications: NotificationService, recipients: [String], reader: NoticeWords.Reader, last: NotificationRepository.Cursor,
        stillValid: @escaping @Sendable () async throws -> Bool
    ) {
        self.notifications = notifications
        self.recipients = recipients
        self.reader = reader
        self.last = last
        self.stillValid = stillValid
    }

    package var isCurrent: Bool { slot?.current ?? true }

    package func revoked() async throws -> String? {
        try await stillValid() ? nil : ""
    }

    package mutating func next() async throws -> EventStream.Next {
        let rows = notifications.rows
        // The count first: a notice written meanwhile is then sent before the count that includes it.
        let count = try await rows.unreadCount(for: recipients)
        var text = ""
        for notice in try await rows.newer(for: recipients, after: last, limit: 100) {
            let data = String(decoding: try JSONEncoder.sorted.encode(notifications.json(notice, for: reader)), as: UTF8.self)
            last = NotificationRepository.Cursor(time: notice.createdAt.millisecondsSince1970, id: notice.id)
            text += "id: \(last.token)\nevent: notification\ndata: \(data)\n\n"
        }
        if count != unread {
            unread = count
            text += "event: unread\ndata: {\"unreadCount\":\(count)}\n\n"
        }
        return text.isEmpty ? .idle : .send(text)
    }

    package func wait(timeout: Duration) async {
        await notifications.bell.wait(NotificationService.anyone, timeout: timeout)
    }
}
