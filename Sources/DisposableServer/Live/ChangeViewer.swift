import Foundation
import NIOConcurrencyHelpers

/// Turns a stored change into what one subscriber may see: `mine` set for their own photos, and for a
/// guest of a reveal-later event, no photo content from others until the reveal (GAL-2).
struct ChangeViewer: Sendable {
    let role: EventRole
    let viewerID: String
    let services: AppServices

    /// The change as this viewer's JSON text (an SSE `data:` line). A change has only a few variants
    /// (hidden, someone else's, mine; organizer or guest), so a thousand subscribers share the work.
    func payload(_ change: Change, event: Event, cache: RenderedChanges? = nil) throws -> String {
        let links = services.mediaLinks
        let key = "\(event.id)/\(change.seq)/\(variant(change, event: event))/\(links?.until ?? 0)"
        if let cached = cache?.get(key) { return cached }
        let object = try self.object(change, event: event, links: links)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        cache?.set(key, text)
        return text
    }

    /// What decides how a change looks to this viewer.
    private func variant(_ change: Change, event: Event) -> String {
        let isMine = change.uploaderID == viewerID
        let hidden = role == .guest && !isMine && !Reveal.isRevealed(event, at: services.clock.now)
        return "\(role.rawValue)-\(isMine ? "mine" : "other")-\(hidden ? "hidden" : "shown")-\(awaitsApproval(change) ? "pending" : "approved")"
    }

    /// A photo change whose photo waits for the organizer's approval (ORG-4).
    private func awaitsApproval(_ change: Change) -> Bool {
        // A byte search, not a parse: this runs for every subscriber (only photo objects have "approved").
        change.uploaderID != nil && change.payload.range(of: Data("\"approved\":false".utf8)) != nil
    }

    /// The change for this viewer, photo links signed with `links` (stored payloads hold unsigned ones).
    func object(_ change: Change, event: Event, links: MediaLinks?) throws -> [String: Any] {
        guard var object = try JSONSerialization.jsonObject(with: change.payload) as? [String: Any] else { return [:] }
        let isMine = change.uploaderID == viewerID
        if var photo = object["photo"] as? [String: Any] {
            let hidden = role == .guest && !isMine && !Reveal.isRevealed(event, at: services.clock.now)
            if role == .guest && !isMine && photo["approved"] as? Bool == false {
                // Waiting for the organizer: other guests learn nothing about it yet.
                object["photo"] = nil
                object["awaitingApproval"] = true
            } else if hidden {
                // The shape of the news without its content: enough to count "developing" photos.
                object["photo"] = nil
                object["developing"] = true
            } else {
                photo["mine"] = isMine
                if let links, let id = photo["id"] as? String, var urls = photo["urls"] as? [String: Any] {
                    (urls["thumbnail"], urls["preview"]) = links.paths(eventID: event.id, photoID: id)
                    photo["urls"] = urls
                }
                object["photo"] = photo
            }
        }
        if var eventObject = object["event"] as? [String: Any] {
            eventObject["role"] = role.rawValue
            object["event"] = eventObject
        }
        return object
    }
}

/// Change payloads as sent, shared by every stream of this instance; bounded, emptied when full.
final class RenderedChanges: Sendable {
    private let entries = NIOLockedValueBox<[String: String]>([:])
    private let limit = 20_000

    func get(_ key: String) -> String? { entries.withLockedValue { $0[key] } }

    func set(_ key: String, _ text: String) {
        entries.withLockedValue { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = text
        }
    }
}
