import DisposableAPI
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /api/v1/events/{id}/changes`: the change feed as Server-Sent Events (LIVE-1), resumable with
/// `Last-Event-ID`; or, with `Accept: application/json` and `?since=N`, as JSON pages for sync clients (LIVE-3).
struct ChangesController {
    let events: EventService
    let hub: ChangeHub
    let signer: MediaSigner
    let clock: any AppClock
    /// How often an idle stream sends a comment line, so proxies and phones keep it open.
    let heartbeat: Duration
    /// Payloads rendered once per variant, shared by every stream.
    let rendered = RenderedChanges()

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/changes", use: changes)
    }

    @Sendable func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let (event, role) = try await events.event(try context.parameters.require("id"), for: identity)
        let viewer = ChangeViewer(
            role: role, viewerID: try await events.viewerID(in: event, role: role, identity: identity), clock: clock, signer: signer)
        let wantsJSON =
            request.headers[.accept]?.contains("application/json") == true && request.headers[.accept]?.contains("text/event-stream") != true
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
            start = try await hub.latest(event.id)
        }
        let (hub, rendered, heartbeat, eventRows) = (hub, rendered, heartbeat, events.events)
        await hub.follow(event.id, from: start)
        let headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
            .init("X-Accel-Buffering")!: "no",  // nginx: do not buffer the stream
        ]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
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
                            let deleted = String(decoding: try JSONEncoder.sorted.encode(ChangePayload(kind: .eventDeleted)), as: UTF8.self)
                            try await writer.write(ByteBuffer(string: "event: event-deleted\ndata: \(deleted)\n\n"))
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
                        if change.kind == .eventUpdated || change.kind == .eventEnded, let fresh = try await eventRows.find(id: event.id) {
                            event = fresh  // the reveal may depend on the new end time
                        }
                        text +=
                            "id: \(change.seq)\nevent: \(change.kind.rawValue)\ndata: \(try viewer.text(change, event: event, cache: rendered))\n\n"
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
        let changes = try await hub.changes(event.id, after: since, limit: limit + 1)
        let links = signer.links(now: clock.now)
        let items = changes.prefix(limit).map { change in
            ChangeEntry(seq: change.seq, kind: change.kind, createdAt: change.createdAt, change: viewer.payload(change, event: event, links: links))
        }
        return try jsonResponse(ChangePage(items: items, next: changes.prefix(limit).last?.seq ?? since, hasMore: changes.count > limit))
    }
}
