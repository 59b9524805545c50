import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// JN-6: all my shots. Whoever joins signed in is that guest, so an account's shots of every event it is still in —
/// as a guest, an organizer or a co-organizer — are one list, newest first. Only the person's own shots, which they
/// always see (before the reveal, awaiting approval); an event they left or were removed from, or one past its
/// deletion, is not in it.
extension GalleryService {
    package func myPhotos(for identity: Identity?, cursor raw: String?, limit: Int) async throws -> MyPhotosPage {
        guard let identity else { throw Problem.unauthorized }
        let cursor = try raw.map { raw in
            guard let cursor = GalleryCursor(token: raw) else {
                throw Problem.invalidField("cursor", "This cursor is not one we gave out; start again without it.")
            }
            return cursor
        }
        var shooters: [String: String] = [:]
        var byID: [String: Event] = [:]
        for (event, role) in try await events.list(for: identity) {
            byID[event.id] = event
            shooters[event.id] = try await events.viewerID(in: event, role: role, identity: identity)
        }
        let read = try await photos.shots(
            uploaderIDs: Array(Set(shooters.values)), eventIDs: Array(byID.keys), after: cursor, limit: limit)
        // An id shared by two events (an organizer's own) counts only where it is this person's shooter id.
        let mine = read.items.filter { shooters[$0.eventID] == $0.uploaderID }
        let links = signer.links(now: clock.now)
        var seen: Set<String> = []
        let pageEvents = mine.compactMap { photo -> MyPhotosPage.Event? in
            guard seen.insert(photo.eventID).inserted, let event = byID[photo.eventID] else { return nil }
            return MyPhotosPage.Event(id: event.id, name: event.name, code: event.code.description)
        }
        return MyPhotosPage(
            items: mine.map { PhotoJSON($0, viewerID: $0.uploaderID, links: links) }, events: pageEvents, nextCursor: read.next?.token)
    }
}
