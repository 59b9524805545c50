import DisposableCore
import DisposablePlatform
import Foundation

/// The disposable camera: events, joining, the shutter, the gallery, the guestbook and its notices, recaps, the
/// renders that make a photo visible, and deleting an event wholly.
package struct EventParts: Sendable {
    package let events: EventService
    package let joining: JoinService
    package let photos: PhotoService
    package let gallery: GalleryService
    package let guestbook: GuestbookService
    package let notifications: NotificationService
    package let recaps: RecapService
    package let renderer: PhotoRenderer
    package let deletion: EventDeletion
    /// The organizer's list of guests, and removing one.
    package let eventGuests: EventGuests
    let eventRows: EventRepository
    /// The rows some instance-wide parts read beside the services (a person's data, the sweep).
    let guestRows: GuestRepository
    let photoRows: PhotoRepository

    package init(_ platform: PlatformParts, _ people: AccountParts) {
        let (configuration, rows, clock, blobs, changes) = (platform.configuration, platform.rows, platform.clock, platform.blobs, platform.changes)
        let eventRows = EventRepository(database: rows)
        self.eventRows = eventRows
        guestRows = GuestRepository(database: rows)
        var photoRows = PhotoRepository(database: rows)
        photoRows.firstLookRenderDelay = configuration.firstLookRenderDelay
        self.photoRows = photoRows
        deletion = EventDeletion(
            events: eventRows, records: DeletionRecordRepository(database: rows), photos: photoRows, blobs: blobs, changes: changes, clock: clock)
        let rememberedEvents = RememberedEvents(events: eventRows, recent: platform.recentReads)
        events = EventService(
            events: eventRows, guests: guestRows, coOrganizers: CoOrganizerRepository(database: rows), passwords: platform.passwords,
            clock: clock, links: platform.links, readEvent: { try await rememberedEvents.event($0) }, changes: changes, deletion: deletion)
        joining = JoinService(
            transactions: platform.transactions, events: eventRows, guests: guestRows, tokens: people.accounts.tokens,
            passwords: platform.passwords, clock: clock, links: platform.links,
            guessLimiter: JoinService.guessLimiter(perAddress: configuration.limits.join, perEvent: configuration.limits.joinPerEvent))
        let guestbookRows = GuestbookRepository(database: rows)
        photos = PhotoService(
            photos: photoRows, events: events, joining: joining, blobs: blobs, redactions: LocationRedactions(), ingest: platform.ingest,
            pendingWrites: platform.pendingWrites, signer: platform.signer, pictures: people.pictures, changes: changes,
            newWork: platform.newWork, clock: clock,
            limits: .init(maxBytes: configuration.maxUploadBytes, maxPixels: configuration.maxPixels, maxVideoBytes: configuration.maxVideoBytes),
            likes: guestbookRows)
        gallery = GalleryService(
            photos: photoRows, events: events, signer: platform.signer, pictures: people.pictures, clock: clock, likes: guestbookRows)
        recaps = RecapService(
            events: events, photos: photoRows, blobs: blobs, images: platform.images, signer: platform.signer, pictures: people.pictures,
            clock: clock)
        notifications = NotificationService(
            rows: NotificationRepository(database: rows), bell: StreamWaker(), clock: clock, retention: configuration.retention)
        guestbook = GuestbookService(
            photos: photos, rows: guestbookRows, limiter: RateLimiter([.target: configuration.limits.guestbookWrites]), bell: notifications.bell)
        eventGuests = EventGuests(events: events, guests: guestRows, photos: photos)
        renderer = PhotoRenderer(
            photos: photoRows, blobs: blobs, pendingWrites: platform.pendingWrites, changes: changes, clock: clock, pipeline: platform.renders)
    }

    /// Marks the moments events reach (reveal, end, the deletion warning), with their notices.
    package func clockAnnouncer(
        _ platform: PlatformParts, started: StartupGate, retention: TimeInterval, interval: Duration
    ) -> ClockAnnouncer {
        ClockAnnouncer(
            transactions: platform.transactions, events: eventRows, changes: platform.changes, clock: platform.clock, started: started,
            logger: platform.logger, retention: retention, interval: interval)
    }
}
