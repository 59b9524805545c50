import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `GET /api/v1/notifications` (a page, or with `Accept: text/event-stream` the new ones as they come and the unread
/// count as it moves: one stream per tab, across all the person's events) and `POST /api/v1/notifications/read`.
package struct NotificationController {
    package let notifications: NotificationService
    package let streams: NotificationStreams
    package let heartbeat: Duration
    package let stillValid: @Sendable (Identity) async throws -> Bool
    /// Counts the writes that may end a grant (`EventStream`).
    package let writes: @Sendable () -> UInt64

    package init(
        notifications: NotificationService, streams: NotificationStreams, heartbeat: Duration,
        stillValid: @escaping @Sendable (Identity) async throws -> Bool, writes: @escaping @Sendable () -> UInt64
    ) {
        self.notifications = notifications
        self.streams = streams
        self.heartbeat = heartbeat
        self.stillValid = stillValid
        self.writes = writes
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/notifications", use: list)
        router.post("/api/v1/notifications/read", use: markRead)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = WebRequest(request, context: context)
        let reader = NoticeWords.Reader(language: page.language, zone: page.timeZone)
        guard request.headers[.accept]?.contains("text/event-stream") == true else {
            return try jsonResponse(
                try await notifications.page(
                    cursor: query.get("cursor"), limit: try GalleryController.limit(query.get("limit")), for: context.identity, reader: reader))
        }
        let identity = try context.requireIdentity()
        let stillValid = self.stillValid
        var source = try await notifications.liveSource(for: identity, reader: reader, resume: request.headers[.init("Last-Event-ID")!]) {
            try await stillValid(identity)
        }
        let slot = streams.open(for: identity.tokenHash)
        source.slot = slot
        return EventStream.response(source, opening: "notifications", heartbeat: heartbeat, writes: writes) { slot.close() }
    }

    @Sendable package func markRead(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(NotificationsRead.self)
        return try jsonResponse(try await notifications.markRead(input, for: context.identity))
    }
}

extension NotificationsRead: JSONBody {
    package static let fields: Set<String> = ["ids"]
}
