import DisposableAPI
import Foundation
import Hummingbird

/// `GET /api/v1/notifications` (a page, or with `Accept: text/event-stream` the new ones as they come and the unread
/// count as it moves: one stream per tab, across all the person's events) and `POST /api/v1/notifications/read`.
struct NotificationController {
    let notifications: NotificationService
    let streams: NotificationStreams
    let heartbeat: Duration
    let stillValid: @Sendable (Identity) async throws -> Bool

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/notifications", use: list)
        router.post("/api/v1/notifications/read", use: markRead)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard request.headers[.accept]?.contains("text/event-stream") == true else {
            return try jsonResponse(
                try await notifications.page(
                    cursor: query.get("cursor"), limit: try GalleryController.limit(query.get("limit")), for: context.identity))
        }
        let identity = try context.requireIdentity()
        let (notifications, heartbeat, stillValid) = (notifications, heartbeat, stillValid)
        let rows = notifications.rows
        let recipients = try await rows.recipients(of: identity)
        var last = try await rows.latest(for: recipients)
        if let resume = request.headers[.init("Last-Event-ID")!].flatMap(NotificationRepository.Cursor.init(token:)) { last = resume }
        let start = last
        let slot = streams.open(for: identity.tokenHash)
        let headers: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { slot.close() }
                var last = start
                var unread = -1
                var lastWrite = ContinuousClock.now
                var checked = ContinuousClock.now
                try await writer.write(ByteBuffer(string: "retry: 2000\n: notifications\n\n"))
                while !Task.isCancelled && !Task.isShuttingDownGracefully && slot.current {
                    if ContinuousClock.now - checked >= .seconds(5) {
                        guard try await stillValid(identity) else { break }
                        checked = .now
                    }
                    // The count first: a notice written meanwhile is then sent before the count that includes it.
                    let count = try await rows.unreadCount(for: recipients)
                    var text = ""
                    for notice in try await rows.newer(for: recipients, after: last, limit: 100) {
                        let data = String(decoding: try JSONEncoder.sorted.encode(notifications.json(notice)), as: UTF8.self)
                        last = NotificationRepository.Cursor(time: notice.createdAt.millisecondsSince1970, id: notice.id)
                        text += "id: \(last.token)\nevent: notification\ndata: \(data)\n\n"
                    }
                    if count != unread {
                        unread = count
                        text += "event: unread\ndata: {\"unreadCount\":\(count)}\n\n"
                    }
                    if !text.isEmpty {
                        try await writer.write(ByteBuffer(string: text))
                        lastWrite = .now
                    } else if ContinuousClock.now - lastWrite >= heartbeat {
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        lastWrite = .now
                    }
                    await notifications.bell.wait(NotificationService.anyone, timeout: min(.seconds(2), heartbeat))
                }
                try await writer.finish(nil)
            })
    }

    @Sendable func markRead(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(NotificationsRead.self)
        return try jsonResponse(try await notifications.markRead(input, for: context.identity))
    }
}

extension NotificationsRead: JSONBody {
    static let fields: Set<String> = ["ids"]
}
