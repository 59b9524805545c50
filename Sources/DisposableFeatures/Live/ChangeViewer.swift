import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import NIOConcurrencyHelpers

/// Turns a stored change into what one subscriber may see (`PhotoVisibility.disclosure`): `mine` set for their
/// own photos, photo links signed, and no photo content that is not theirs to see yet.
package struct ChangeViewer: Sendable {
    package let role: EventRole
    package let viewerID: String
    package let clock: any AppClock
    package let signer: MediaSigner
    /// Shooters' pictures beside their photos; nil for the venue wall, which has no session to fetch them with.
    package let pictures: ShooterPictures?

    package init(role: EventRole, viewerID: String, clock: any AppClock, signer: MediaSigner, pictures: ShooterPictures?) {
        self.role = role
        self.viewerID = viewerID
        self.clock = clock
        self.signer = signer
        self.pictures = pictures
    }

    /// The event's shooters' pictures, as `text` and `payload` take them.
    package func pictures(of event: Event) async throws -> [String: String] {
        try await pictures?.inEvent(event.id) ?? [:]
    }

    /// The change as this viewer's JSON text (an SSE `data:` line). A change has only a few variants
    /// (hidden, someone else's, mine; organizer or guest), so a thousand subscribers share the work.
    package func text(_ change: Change, event: Event, pictures: [String: String], cache: RenderedChanges) throws -> String {
        let links = signer.links(now: clock.now)
        let visibility = visibility(event)
        let isMine = change.uploaderID == viewerID
        let disclosure = visibility.disclosure(uploaderID: change.uploaderID, approved: Self.approved(change.facts))
        let picture = change.uploaderID.flatMap { pictures[$0] } ?? ""
        let key = "\(event.id)/\(change.seq)/\(role.rawValue)/\(isMine)/\(disclosure)/\(links?.until ?? 0)/\(picture)"
        if let cached = cache.get(key) { return cached }
        let text = String(decoding: try JSONEncoder.sorted.encode(payload(change, event: event, links: links, pictures: pictures)), as: UTF8.self)
        cache.set(key, text)
        return text
    }

    /// The change for this viewer, photo links signed with `links` (stored facts hold unsigned ones), the
    /// shooter's picture as it is now (stored facts hold none).
    package func payload(_ change: Change, event: Event, links: MediaLinks?, pictures: [String: String]) -> ChangePayload {
        var payload = change.facts
        if [.commentAdded, .commentRemoved, .likesChanged].contains(change.kind) {
            // News about a post the viewer may not see yet tells them nothing (not even which post).
            switch visibility(event).disclosure(uploaderID: change.uploaderID, approved: Self.approved(change.facts)) {
            case .awaitingApproval: return ChangePayload(kind: change.kind, awaitingApproval: true)
            case .developing: return ChangePayload(kind: change.kind, developing: true)
            case .whole:
                payload.awaitingApproval = nil
                return payload
            }
        }
        if var photo = payload.photo {
            switch visibility(event).disclosure(uploaderID: change.uploaderID, approved: photo.approved) {
            case .awaitingApproval:
                // Waiting for the organizer: other guests learn nothing about it yet.
                payload.photo = nil
                payload.awaitingApproval = true
            case .developing:
                // The shape of the news without its content: enough to count "developing" photos.
                payload.photo = nil
                payload.developing = true
            case .whole:
                photo.mine = change.uploaderID == viewerID
                if photo.kind != .note {
                    photo.urls = PhotoJSON.URLs(
                        photoID: photo.id, eventID: event.id, links: links, video: photo.kind == .video, previewPending: photo.previewPending == true,
                        firstLook: photo.firstLook == true)
                }
                photo.shooter.avatarURL = change.uploaderID.flatMap { pictures[$0] }
                payload.photo = photo
            }
        }
        payload.event?.role = role
        return payload
    }

    /// Whether the post a change is about was approved when it happened: photo changes carry the photo; comment
    /// and like changes say `awaitingApproval` in their stored facts.
    private static func approved(_ facts: ChangePayload) -> Bool {
        facts.photo?.approved ?? !(facts.awaitingApproval ?? false)
    }

    private func visibility(_ event: Event) -> PhotoVisibility {
        PhotoVisibility(event: event, role: role, viewerID: viewerID, now: clock.now)
    }
}

/// Change payloads as sent, shared by every stream of this instance; bounded, emptied when full.
package final class RenderedChanges: Sendable {
    private let entries = NIOLockedValueBox<[String: String]>([:])
    private let limit = 20_000

    package func get(_ key: String) -> String? { entries.withLockedValue { $0[key] } }

    package func set(_ key: String, _ text: String) {
        entries.withLockedValue { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = text
        }
    }

    package init() {}
}
