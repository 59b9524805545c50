import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// `GET /api/v1/events/{id}/changes`: the change feed as Server-Sent Events (LIVE-1), resumable with
/// `Last-Event-ID`; or, with `Accept: application/json` and `?since=N`, as JSON pages for sync clients (LIVE-3).
package struct ChangesController {
    package let events: EventService
    package let hub: ChangeHub
    package let signer: MediaSigner
    package let pictures: ShooterPictures
    package let clock: any AppClock
    /// How often an idle stream sends a comment line, so proxies and phones keep it open.
    package let heartbeat: Duration
    /// Payloads rendered once per variant, shared by every stream.
    package let rendered = RenderedChanges()
    /// Whether the stream's token still opens the event in the same role: checked after writes that may end it
    /// (`writes`, `EventStream.recheck`).
    package let stillValid: @Sendable (Identity, _ eventID: String, EventRole) async throws -> Bool
    /// Counts the writes that may end a grant (`RecentReads.writesThatMayRevoke`).
    package let writes: @Sendable () -> UInt64
    /// Live streams open per token, so one client cannot hold thousands.
    package let streams: LiveStreamSlots
    package let walls: VenueWall

    package init(
        events: EventService, hub: ChangeHub, signer: MediaSigner, pictures: ShooterPictures, clock: any AppClock, heartbeat: Duration,
        stillValid: @escaping @Sendable (Identity, _ eventID: String, EventRole) async throws -> Bool, writes: @escaping @Sendable () -> UInt64,
        streams: LiveStreamSlots, walls: VenueWall
    ) {
        self.events = events
        self.hub = hub
        self.signer = signer
        self.pictures = pictures
        self.clock = clock
        self.heartbeat = heartbeat
        self.stillValid = stillValid
        self.writes = writes
        self.streams = streams
        self.walls = walls
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/changes", use: changes)
        router.get("/api/v1/walls/:key/changes", use: wallChanges)
    }

    @Sendable package func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let (event, role) = try await events.event(try context.parameters.require("id"), for: identity)
        let viewer = ChangeViewer(
            role: role, viewerID: try await events.viewerID(in: event, role: role, identity: identity), clock: clock, signer: signer,
            pictures: pictures)
        if Self.wantsJSON(request) { return try await page(request, event: event, viewer: viewer) }
        let stillValid = self.stillValid
        return try await stream(request, event: event, viewer: viewer, slotKey: identity.tokenHash) {
            try await stillValid(identity, event.id, role)
        }
    }

    /// The venue wall's feed (GAL-5): what a guest who shot nothing sees, for as long as the wall link stands.
    @Sendable package func wallChanges(_ request: Request, context: AppRequestContext) async throws -> Response {
        let key = try context.parameters.require("key")
        let event = try await walls.event(key: key)
        let viewer = ChangeViewer(role: .guest, viewerID: VenueWall.viewerID, clock: clock, signer: signer, pictures: nil)
        if Self.wantsJSON(request) { return try await page(request, event: event, viewer: viewer) }
        let walls = self.walls
        return try await stream(request, event: event, viewer: viewer, slotKey: "wall:\(SecretToken.hash(key))") {
            try await walls.opens(key: key, eventID: event.id)
        }
    }

    /// The feed of `event` as `viewer` sees it, from `Last-Event-ID` or from now, while `stillValid` holds.
    private func stream(
        _ request: Request, event: Event, viewer: ChangeViewer, slotKey: String, stillValid: @escaping @Sendable () async throws -> Bool
    ) async throws -> Response {
        let query = request.uri.queryParameters
        let resumeFrom = request.headers[.init("Last-Event-ID")!] ?? query.get("lastEventId")
        // A new subscriber gets what happens from now on (it loaded the gallery just before). A resuming one
        // never starts past what exists: a made-up position would make every stream of the event spin.
        let latest = try await hub.latest(event.id)
        var resumed: Int64? = nil
        if let resumeFrom {
            guard let seq = Int64(resumeFrom), seq >= 0 else {
                throw Problem.invalidField("lastEventId", "Last-Event-ID must be the id of an event this stream sent.")
            }
            resumed = seq
        }
        let start = min(resumed ?? latest, latest)
        let slot = try streams.open(for: slotKey)
        await hub.follow(event.id, from: start)
        let source = EventChangeSource(
            hub: hub, events: events, rendered: rendered, viewer: viewer, event: event, last: start, stillValid: stillValid)
        return EventStream.response(source, opening: "stream of \(event.id) from \(start)", heartbeat: heartbeat, writes: writes) { slot.close() }
    }

    /// Sync clients ask for JSON pages; browsers' EventSource for the stream.
    private static func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true && request.headers[.accept]?.contains("text/event-stream") != true
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
        let pictures = try await viewer.pictures(of: event)
        let items = changes.prefix(limit).map { change in
            ChangeEntry(
                seq: change.seq, kind: change.kind, createdAt: change.createdAt,
                change: viewer.payload(change, event: event, links: links, pictures: pictures))
        }
        return try jsonResponse(ChangePage(items: items, next: changes.prefix(limit).last?.seq ?? since, hasMore: changes.count > limit))
    }
}

/// An event's changes as one viewer sees them, from a position on.
package struct EventChangeSource: EventStreamSource {
    package let hub: ChangeHub
    package let events: EventService
    package let rendered: RenderedChanges
    package let viewer: ChangeViewer
    package var event: Event
    package var last: Int64
    package let stillValid: @Sendable () async throws -> Bool

    package init(
        hub: ChangeHub, events: EventService, rendered: RenderedChanges, viewer: ChangeViewer, event: Event, last: Int64,
        stillValid: @escaping @Sendable () async throws -> Bool
    ) {
        self.hub = hub
        self.events = events
        self.rendered = rendered
        self.viewer = viewer
        self.event = event
        self.last = last
        self.stillValid = stillValid
    }

    /// Said when the event is deleted: deleting it takes its guests' tokens too, so this comes before the end.
    package static let deleted: String = {
        let payload = String(decoding: try! JSONEncoder.sorted.encode(ChangePayload(kind: .eventDeleted)), as: UTF8.self)
        return "event: event-deleted\ndata: \(payload)\n\n"
    }()

    /// A guest who left, a signed-out session, a deleted account, a wall link turned off: the stream ends with its
    /// grant — telling of a deleted event first.
    package func revoked() async throws -> String? {
        guard try await !stillValid() else { return nil }
        await hub.refresh(event.id, force: true)
        return await hub.isDeleted(event.id) ? Self.deleted : ""
    }

    package mutating func next() async throws -> EventStream.Next {
        let batch = try await hub.changes(event.id, after: last)
        if batch.isEmpty { return await hub.isDeleted(event.id) ? .end(Self.deleted) : .idle }
        var text = ""
        let pictures = try await viewer.pictures(of: event)
        for change in batch {
            if change.kind == .eventUpdated || change.kind == .eventEnded, let fresh = try await events.find(id: event.id) {
                event = fresh  // the reveal may depend on the new end time
            }
            let data = try viewer.text(change, event: event, pictures: pictures, cache: rendered)
            text += "id: \(change.seq)\nevent: \(change.kind.rawValue)\ndata: \(data)\n\n"
            last = change.seq
        }
        return .send(text)
    }

    package func wait(timeout: Duration) async {
        await hub.wait(event.id, after: last, timeout: timeout)
        // The database is the source of truth: catch up on anything a notification missed.
        await hub.refresh(event.id, force: false)
    }
}
