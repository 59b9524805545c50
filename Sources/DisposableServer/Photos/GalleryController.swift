import Foundation
import Hummingbird

/// The general gallery, "My shots" (GAL-1..3) and the organizer's stats (ORG-2).
struct GalleryController {
    let services: AppServices
    let access: EventAccess
    /// Pages written lately, reused while their event stands still.
    let pages = GalleryPageCache()

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/api/v1/events/:id/photos", use: list)
        router.get("/api/v1/events/:id/stats", use: stats)
    }

    struct PageJSON: Encodable {
        let items: [PhotoJSON]
        let nextCursor: String?
        /// Whether the general gallery is open (GAL-2).
        let revealed: Bool
        /// When it opens; only for events that reveal later.
        let revealAt: Date?
        /// Photos waiting for the reveal; only while the gallery is closed.
        let developingCount: Int?
        /// The change feed's position when this page was read: subscribe with `Last-Event-ID` = this.
        let changeSeq: Int64

        /// The same JSON as `JSONEncoder.sorted` gives, written directly: the gallery is the busiest read.
        var json: JSONText {
            var items = JSONText(capacity: self.items.count * 700)
            items.array(self.items) { item, json in item.write(to: &json) }
            return Self.json(items: items.bytes, nextCursor: nextCursor, revealed: revealed, revealAt: revealAt,
                             developingCount: developingCount, changeSeq: changeSeq)
        }

        /// A page around its `items` array, written before.
        static func json(items: [UInt8], nextCursor: String?, revealed: Bool, revealAt: Date?, developingCount: Int?,
                         changeSeq: Int64) -> JSONText {
            var json = JSONText(capacity: 256 + items.count)
            json.object { json in
                json.field("changeSeq", changeSeq)
                json.field("developingCount", developingCount)
                json.key("items")
                json.written(items)
                json.field("nextCursor", nextCursor)
                json.field("revealAt", revealAt)
                json.field("revealed", revealed)
            }
            return json
        }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let identity = try context.requireIdentity()
        // The event row carries the change feed's position, read before the page, so that nothing committed
        // in between is missed by a subscriber starting there.
        let (event, role) = try await access.event(try context.parameters.require("id"), for: identity, forRead: true)
        let viewerID = try await access.uploaderID(in: event, role: role, identity: identity)
        let query = request.uri.queryParameters
        let limit = try Self.limit(query.get("limit"))
        let rawCursor = query.get("cursor")
        let cursor = try rawCursor.map { raw in
            guard let cursor = PhotoRepository.Cursor(token: raw) else {
                throw Problem.invalidField("cursor", "This cursor is not one we gave out; start again without it.")
            }
            return cursor
        }
        guard let order = PhotoRepository.Order(rawValue: query.get("order") ?? "uploaded") else {
            throw Problem.invalidField("order", "order must be “uploaded” or “taken”.")
        }
        let mine = query.get("mine") == "true"
        let now = services.clock.now
        let revealed = Reveal.isRevealed(event, at: now)
        let revealAt = event.revealMode == .now ? nil : event.revealsAt
        let developingCount = revealed ? nil : try await developingCount(event)
        // Guests see nothing of others before the reveal; their own shots are always theirs to see.
        if !mine && role == .guest && !revealed {
            return jsonResponse(PageJSON(items: [], nextCursor: nil, revealed: false, revealAt: revealAt, developingCount: developingCount,
                                         changeSeq: event.changeSeq).json)
        }
        let links = services.media.links(now: now)
        let key = GalleryPageCache.Key(eventID: event.id, viewerID: viewerID, guestView: role == .guest, order: order, cursor: rawCursor,
                                       limit: limit, linksUntil: links?.until, revealed: revealed)
        if !mine, let kept = pages.page(key, at: event.changeSeq) { return jsonResponse(kept) }
        let read = try await services.photos.page(
            eventID: event.id, uploaderID: mine ? viewerID : nil, approvedOrBy: role == .guest ? viewerID : nil, order: order,
            after: cursor, limit: limit)
        var items = JSONText(capacity: read.items.count * 700)
        items.array(read.items) { photo, json in PhotoJSON(photo, viewerID: viewerID, links: links).write(to: &json) }
        let page = ByteBuffer(bytes: PageJSON.json(items: items.bytes, nextCursor: read.next?.token, revealed: revealed, revealAt: revealAt,
                                                   developingCount: developingCount, changeSeq: event.changeSeq).bytes)
        if !mine { pages.store(page, for: key, at: event.changeSeq) }
        return jsonResponse(page)
    }

    /// Photos waiting for the reveal, counted once per position of the event's feed.
    private func developingCount(_ event: Event) async throws -> Int {
        if let known = pages.developingCount(eventID: event.id, at: event.changeSeq) { return known }
        let count = try await services.photos.developingCount(eventID: event.id)
        pages.storeDevelopingCount(count, eventID: event.id, at: event.changeSeq)
        return count
    }

    static func limit(_ raw: String?) throws -> Int {
        guard let raw else { return 50 }
        guard let limit = Int(raw), (1...100).contains(limit) else {
            throw Problem.invalidField("limit", "limit must be a whole number from 1 to 100.")
        }
        return limit
    }

    struct StatsJSON: Encodable {
        struct Shooter: Encodable {
            let name: String
            let photos: Int
        }

        struct Hour: Encodable {
            let hour: Date
            let photos: Int
        }

        let photos: Int
        /// ORG-4: photos waiting for the organizer's approval.
        let awaitingApproval: Int
        let guests: Int
        let bytesStored: Int64
        let photosPerGuest: [Shooter]
        let uploadsPerHour: [Hour]
    }

    /// The organizer's numbers: photos, guests, photos per guest, storage used, uploads over time.
    @Sendable func stats(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await access.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let photos = try await services.photos.all(eventID: event.id).filter { $0.status != .failed }
        var perShooter: [String: (name: String, count: Int)] = [:]
        var perHour: [Int64: Int] = [:]
        for photo in photos {
            perShooter[photo.uploaderID, default: (photo.shooterName, 0)].count += 1
            perHour[photo.uploadedAt.millisecondsSince1970 / 3_600_000, default: 0] += 1
        }
        return try jsonResponse(StatsJSON(
            photos: photos.count,
            awaitingApproval: photos.filter { !$0.approved }.count,
            guests: event.guestCount,
            bytesStored: try await services.photos.storedBytes(eventID: event.id),
            photosPerGuest: perShooter.values.sorted { ($1.count, $0.name) < ($0.count, $1.name) }.map { .init(name: $0.name, photos: $0.count) },
            uploadsPerHour: perHour.sorted { $0.key < $1.key }.map { .init(hour: Date(millisecondsSince1970: $0.key * 3_600_000), photos: $0.value) }))
    }
}
