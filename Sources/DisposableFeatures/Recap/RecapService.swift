import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// CAP-1: an event's recap — the best of what every guest can see, chosen by `Selection` — and its collage.
/// Everyone in the event sees it once the event has ended (and its photos are revealed); the organizer may look
/// before. Nothing is stored but the collage image, under the event's folder, so it goes with the event.
package struct RecapService: Sendable {
    package let events: EventService
    let photos: PhotoRepository
    package let blobs: any BlobStore
    package let images: any ImageProcessor
    package let signer: MediaSigner
    package let pictures: ShooterPictures
    package let clock: any AppClock

    init(
        events: EventService, photos: PhotoRepository, blobs: any BlobStore, images: any ImageProcessor, signer: MediaSigner,
        pictures: ShooterPictures, clock: any AppClock
    ) {
        self.events = events
        self.photos = photos
        self.blobs = blobs
        self.images = images
        self.signer = signer
        self.pictures = pictures
        self.clock = clock
    }

    package static let defaultCount = 9
    package static let counts = 1...24

    /// The recap as `identity` sees it now.
    package func recap(eventID: String, count: Int, for identity: Identity?) async throws -> RecapJSON {
        let (event, status, chosen) = try await chosen(eventID: eventID, count: count, for: identity)
        let links = signer.links(now: clock.now)
        let pictures = try await pictures.inEvent(event.id)
        return RecapJSON(
            eventId: event.id, eventName: event.name, status: status, readyAt: Self.readyAt(event),
            photos: chosen.map { PhotoJSON($0, viewerID: nil, links: links, pictures: pictures) },
            collageURL: chosen.isEmpty ? nil : "/api/v1/events/\(event.id)/recap/collage.jpg?count=\(count)")
    }

    /// The collage of the recap's photos (JPEG), titled with the event's name and `date` (in the reader's words).
    package func collage(eventID: String, count: Int, for identity: Identity?, date: (Date) -> String) async throws -> (Data, etag: String) {
        let (event, _, chosen) = try await chosen(eventID: eventID, count: count, for: identity)
        guard
            let made = try await Collage(blobs: blobs, images: images).image(
                // A photo whose preview waits lends its thumbnail: a collage cell is smaller than either.
                previews: chosen.map { $0.previewPending ? BlobKey.thumbnail($0.eventID, $0.id) : BlobKey.preview($0.eventID, $0.id) },
                title: event.name, subtitle: date(event.startsAt),
                folder: BlobKey.event(event.id) + "recap/")
        else { throw Problem.notFound("This recap has no photos yet.") }
        return (made.0, made.fingerprint)
    }

    /// Guests see the recap once the event has ended and its gallery is open, whichever comes last.
    package static func readyAt(_ event: Event) -> Date { max(event.endsAt, event.revealsAt) }

    private func chosen(eventID: String, count: Int, for identity: Identity?) async throws -> (Event, RecapJSON.Status, [Photo]) {
        guard let identity else { throw Problem.unauthorized }
        let (event, role) = try await events.event(eventID, for: identity, forRead: true)
        let status: RecapJSON.Status = clock.now >= Self.readyAt(event) ? .ready : EventAccess(role).previewsRecap ? .preview : .waiting
        guard status != .waiting else { return (event, status, []) }
        let candidates = try await photos.recapCandidates(eventID: event.id)
        let byID = Dictionary(uniqueKeysWithValues: candidates.map { ($0.photo.id, $0.photo) })
        let chosen = Selection.choose(
            count,
            from: candidates.map {
                SelectionCandidate(
                    id: $0.photo.id, takenAt: $0.photo.takenAt, shooter: $0.photo.uploaderID, signals: $0.signals,
                    appreciation: $0.photo.likeCount)
            })
        return (event, status, chosen.compactMap { byID[$0.id] })
    }
}
