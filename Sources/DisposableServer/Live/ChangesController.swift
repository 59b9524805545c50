import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /api/v1/events/{id}/changes`: the change feed as Server-Sent Events (LIVE-1), resumable with
/// `Last-Event-ID`; or, with `Accept: application/json` and `?since=N`, as JSON pages for sync clients (LIVE-3).
struct ChangesController {
    let services: AppServices
    let access: EventAccess
    /// Payloads rendered once per variant, shared by every stream.
    let rendered = RenderedChanges()

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/changes", use: changes)
    }

    @Sendable func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let (event, role) = try await access.event(try context.parameters.require("id"), for: identity)
        let viewer = ChangeViewer(
            role: role, viewerID: try await access.uploaderID(in: event, role: role, identity: identity), services: services)
        let wantsJSON = request.headers[.accept]?.contains("application/json") == true && request.headers[.accept]?.contains("text/event-stream") != true
        if wantsJSON { return try await page(request, event: event, viewer: viewer) }

        let query = request.uri.queryParameters
        let resumeFrom = request.headers[.init("Last-Event-ID")!] ?? query.get("lastEventId")
        let start: Int64
        if let resumeFrom {
            guard let seq = Int64(resumeFrom), seq >= 0 else {
                throw Problem.invalidField("lastEventId", "Last-Event-ID must be the id of an event this stream sent.")
            }
            start = seq
        } else {
            // A new subscriber gets what happens from now on; it loaded the gallery just before.
            start = try await services.database.sql { try await ChangeLog.latest(eventID: event.id, in: $0) } ?? 0
        }
        let hub = services.changes
        let rendered = self.rendered
        await hub.follow(event.id, from: start)
        let heartbeat = services.configuration.liveHeartbeat
        let headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
            .init("X-Accel-Buffering")!: "no",  // nginx: do not buffer the stream
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var last = start
            var event = event
            // Tell the browser how long to wait before reconnecting, and open the stream at once.
            try await writer.write(ByteBuffer(string: "retry: 2000\n: stream of \(event.id) from \(start)\n\n"))
            var lastWrite = ContinuousClock.now
            // Streams end when the server shuts down; browsers reconnect (to another instance) and resume.
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                let batch = try await hub.changes(event.id, after: last)
                if batch.isEmpty {
                    if await hub.isDeleted(event.id) {
                        try await writer.write(ByteBuffer(string: "event: event-deleted\ndata: {\"kind\":\"event-deleted\"}\n\n"))
                        break
                    }
                    if ContinuousClock.now - lastWrite >= heartbeat {
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        lastWrite = .now
                    }
                    await hub.wait(event.id, after: last, timeout: min(.seconds(2), heartbeat))
                    // The database is the source of truth: catch up on anything a notification missed.
                    await hub.refresh(event.id, force: false)
                    continue
                }
                var text = ""
                for change in batch {
                    if change.kind == .eventUpdated || change.kind == .eventEnded,
                        let fresh = try await services.events.find(id: event.id)
                    {
                        event = fresh  // the reveal may depend on the new end time
                    }
                    text += "id: \(change.seq)\nevent: \(change.kind.rawValue)\ndata: \(try viewer.payload(change, event: event, cache: rendered))\n\n"
                    last = change.seq
                }
                try await writer.write(ByteBuffer(string: text))
                lastWrite = .now
            }
            try await writer.finish(nil)
        })
    }

    /// The feed as JSON: entries after `since`, oldest first; ask again with `since` = `next`.
    private func page(_ request: Request, event: Event, viewer: ChangeViewer) async throws -> Response {
        let query = request.uri.queryParameters
        guard let since = Int64(query.get("since") ?? "0"), since >= 0 else {
            throw Problem.invalidField("since", "since must be a sequence number (0 for the beginning).")
        }
        let limit = try GalleryController.limit(query.get("limit") ?? "100")
        let changes = try await services.changes.changes(event.id, after: since, limit: limit + 1)
        let links = services.mediaLinks
        let items: [[String: Any]] = try changes.prefix(limit).map { change in
            ["seq": change.seq, "kind": change.kind.rawValue, "createdAt": change.createdAt.rfc3339, "change": try viewer.object(change, event: event, links: links)]
        }
        let page: [String: Any] = ["items": items, "next": changes.prefix(limit).last?.seq ?? since, "hasMore": changes.count > limit]
        let data = try JSONSerialization.data(withJSONObject: page, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
