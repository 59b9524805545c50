import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore

/// The general gallery, "My shots" (GAL-1..3), the organizer's numbers (ORG-2) and what a ZIP holds (DL-2).
package struct GalleryService: Sendable {
    /// How a gallery page is sorted.
    package typealias Order = GalleryOrder

    let photos: PhotoRepository
    package let events: EventService
    package let signer: MediaSigner
    package let pictures: ShooterPictures
    package let clock: any AppClock
    /// Which posts the viewer likes (SOC-2).
    let likes: GuestbookRepository
    /// Pages written lately, reused while their event stands still (PERF-2).
    package let pages = GalleryPageCache()

    init(
        photos: PhotoRepository, events: EventService, signer: MediaSigner, pictures: ShooterPictures, clock: any AppClock, likes: GuestbookRepository
    ) {
        self.photos = photos
        self.events = events
        self.signer = signer
        self.pictures = pictures
        self.clock = clock
        self.likes = likes
    }

    package struct PageRequest: Sendable {
        package let eventID: String
        package let mine: Bool
        package let order: GalleryOrder
        /// As the client sent it (a cursor we gave out).
        package let cursor: String?
        package let limit: Int

        package init(eventID: String, mine: Bool, order: GalleryOrder, cursor: String?, limit: Int) {
            self.eventID = eventID
            self.mine = mine
            self.order = order
            self.cursor = cursor
            self.limit = limit
        }
    }

    /// One page as the response body: written once, shared by every answer while the event stands still.
    package func page(_ request: PageRequest, for identity: Identity?) async throws -> ByteBuffer {
        guard let identity else { throw Problem.unauthorized }
        // The event row carries the change feed's position, read before the page, so that nothing committed
        // in between is missed by a subscriber starting there.
        let (event, role) = try await events.event(request.eventID, for: identity, forRead: true)
        let viewerID = try await events.viewerID(in: event, role: role, identity: identity)
        return try await page(request, in: event, role: role, viewerID: viewerID)
    }

    /// The page as `viewerID`, in `role`, sees it (the venue wall sees it as a guest who shot nothing).
    package func page(_ request: PageRequest, in event: Event, role: EventRole, viewerID: String) async throws -> ByteBuffer {
        let cursor = try request.cursor.map { raw in
            guard let cursor = GalleryCursor(token: raw) else {
                throw Problem.invalidField("cursor", "This cursor is not one we gave out; start again without it.")
            }
            return cursor
        }
        let now = clock.now
        let visibility = PhotoVisibility(event: event, role: role, viewerID: viewerID, now: now)
        let revealAt = event.revealMode == .now ? nil : event.revealsAt
        let developingCount = visibility.revealed ? nil : try await developingCount(event)
        if !request.mine && !visibility.galleryIsOpen {
            return ByteBuffer(
                bytes: GalleryPage.json(
                    items: Array("[]".utf8), nextCursor: nil, revealed: false, revealAt: revealAt,
                    developingCount: developingCount, changeSeq: event.changeSeq
                ).bytes)
        }
        let links = signer.links(now: now)
        let pictures = try await pictures.inEvent(event.id)
        let pageKey = GalleryPageCache.PageKey(
            eventID: event.id, organizers: EventAccess(role).seesEverything, order: request.order, cursor: request.cursor, limit: request.limit,
            linksUntil: links?.until, revealed: visibility.revealed, pictures: pictures)
        let key = GalleryPageCache.Key(page: pageKey, viewerID: viewerID)
        if !request.mine, let kept = pages.page(key, at: event.changeSeq) { return kept }
        let page = GalleryPageText(
            links: links, pictures: pictures, revealed: visibility.revealed, revealAt: revealAt, developingCount: developingCount)
        if !request.mine, try await seesWhatEveryoneSees(visibility, in: event) {
            // One read per position of the feed for everybody; most phones take its body as it is.
            let shared = try await pages.shared.answer(pageKey, at: event.changeSeq) { [photos] in
                let changeSeq = event.changeSeq
                let read = try await photos.page(
                    eventID: event.id, .gallery(PhotoVisibility(event: event, role: role, viewerID: "", now: now)), order: request.order,
                    after: cursor, limit: request.limit)
                return GalleryPageCache.SharedPage(
                    rows: read.items, next: read.next, changeSeq: changeSeq,
                    body: page.written(read.items, next: read.next, changeSeq: changeSeq, viewerID: nil, liked: []))
            }
            let liked = try await likes.liked(by: viewerID, among: shared.rows.filter { $0.likeCount > 0 }.map(\.id))
            if liked.isEmpty && !shared.rows.contains(where: { $0.uploaderID == viewerID }) { return shared.body }
            let own = page.written(shared.rows, next: shared.next, changeSeq: shared.changeSeq, viewerID: viewerID, liked: liked)
            pages.store(own, for: key, at: shared.changeSeq)
            return own
        }
        let read = try await photos.page(
            eventID: event.id, request.mine ? .mine(uploaderID: viewerID) : .gallery(visibility), order: request.order,
            after: cursor, limit: request.limit)
        let liked = try await likes.liked(by: viewerID, among: read.items.filter { $0.likeCount > 0 }.map(\.id))
        let written = page.written(read.items, next: read.next, changeSeq: event.changeSeq, viewerID: viewerID, liked: liked)
        // "My shots" is not kept: approving a photo that is still processing changes it without a feed entry.
        if !request.mine { pages.store(written, for: key, at: event.changeSeq) }
        return written
    }

    /// Whether the viewer's gallery is everyone's of their role: organizers see every photo, and a guest what is
    /// shown to everyone unless one of their own awaits approval.
    private func seesWhatEveryoneSees(_ visibility: PhotoVisibility, in event: Event) async throws -> Bool {
        if visibility.access.seesEverything { return true }
        guard visibility.revealed else { return false }
        let awaiting = try await pages.awaitingApproval.answer(event.id, at: event.changeSeq) { [photos] in
            try await photos.uploadersAwaitingApproval(eventID: event.id)
        }
        return !awaiting.contains(visibility.viewerID)
    }

    /// The newest posts with a picture that a signed-in person sees in one of their events, with a thumbnail address
    /// each: the dashboard's strip under every event, so that their photos of all events are in one place (seed 000:
    /// "personal gallery organized by event"). Nothing before the reveal, as in the gallery.
    package func newest(in event: Event, role: EventRole, identity: Identity, limit: Int) async throws -> [(photo: Photo, thumbnail: String)] {
        let viewerID = try await events.viewerID(in: event, role: role, identity: identity)
        let now = clock.now
        let visibility = PhotoVisibility(event: event, role: role, viewerID: viewerID, now: now)
        guard visibility.galleryIsOpen else { return [] }
        // Notes have no picture: read a few more than shown.
        let read = try await photos.page(eventID: event.id, .gallery(visibility), order: .uploaded, after: nil, limit: limit * 2)
        let links = signer.links(now: now)
        return read.items.filter { $0.kind != .note }.prefix(limit).map { photo in
            (photo, PhotoJSON.URLs(photoID: photo.id, eventID: event.id, links: links, firstLook: photo.showsFirstLook).thumbnail)
        }
    }

    /// Photos waiting for the reveal, counted once per position of the event's feed.
    private func developingCount(_ event: Event) async throws -> Int {
        if let known = pages.developingCount(eventID: event.id, at: event.changeSeq) { return known }
        let count = try await photos.developingCount(eventID: event.id)
        pages.storeDevelopingCount(count, eventID: event.id, at: event.changeSeq)
        return count
    }

    /// The organizer's numbers: photos, guests (and how many of them shot), photos per guest, storage used, uploads
    /// over time, downloads.
    package func stats(eventID: String, for identity: Identity?) async throws -> EventStats {
        let event = try await events.organizedEvent(eventID, for: identity)
        let photos = try await photos.all(eventID: event.id).filter { $0.status != .failed }
        let downloads = try await events.downloads(of: event)
        var perShooter: [String: (name: String, count: Int)] = [:]
        var perHour: [Int64: Int] = [:]
        for photo in photos {
            perShooter[photo.uploaderID, default: (photo.shooterName, 0)].count += 1
            perHour[photo.uploadedAt.millisecondsSince1970 / 3_600_000, default: 0] += 1
        }
        return EventStats(
            photos: photos.count,
            awaitingApproval: photos.filter { !$0.approved }.count,
            guests: event.guestCount,
            bytesStored: try await self.photos.storedBytes(eventID: event.id),
            photosPerGuest: perShooter.values.sorted { ($1.count, $0.name) < ($0.count, $1.name) }.map { .init(name: $0.name, photos: $0.count) },
            uploadsPerHour: perHour.sorted { $0.key < $1.key }.map { .init(hour: Date(millisecondsSince1970: $0.key * 3_600_000), photos: $0.value) },
            guestsWhoShot: try await self.photos.guestsWhoShot(eventID: event.id),
            downloads: EventStats.Downloads(zips: downloads.zips, originals: downloads.originals))
    }

    /// A ZIP of the event is on its way: one more download in the organizers' numbers.
    package func countArchive(of event: Event) async throws {
        try await events.countDownload(eventID: event.id, .zip)
    }

    /// What a ZIP of the event holds for this caller (DL-2): the ready photos they may see, or the chosen
    /// ones among them; the originals without GPS unless they are the caller's own.
    package func archive(eventID: String, only wanted: Set<String>?, for identity: Identity?) async throws -> (
        Event, [Photo], notes: [Photo], viewerID: String
    ) {
        guard let identity else { throw Problem.unauthorized }
        let (event, role) = try await events.event(eventID, for: identity)
        let viewerID = try await events.viewerID(in: event, role: role, identity: identity)
        guard EventAccess(role).mayDownload(in: event) else { throw Problem.downloadsDisabled }
        let visibility = PhotoVisibility(event: event, role: role, viewerID: viewerID, now: clock.now)
        var chosen = try await photos.visible(eventID: event.id, to: visibility)
        if let wanted {
            guard !wanted.isEmpty, wanted.count <= 10_000 else { throw Problem.invalidField("ids", "ids must list 1 to 10000 photo ids.") }
            chosen = chosen.filter { wanted.contains($0.id) }
            guard chosen.count == wanted.count else {
                throw Problem.notFound("Some of these photos do not exist, are not ready, or you cannot see them.")
            }
        }
        // The whole event's download carries the guestbook's notes too; a selection is the photos chosen.
        let notes = wanted == nil ? try await photos.visible(eventID: event.id, to: visibility, notes: true) : []
        return (event, chosen, notes, viewerID)
    }
}
