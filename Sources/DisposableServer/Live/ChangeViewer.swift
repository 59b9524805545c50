import Foundation

/// Turns a stored change into what one subscriber may see: `mine` set for their own photos, and for a
/// guest of a reveal-later event, no photo content from others until the reveal (GAL-2).
struct ChangeViewer: Sendable {
    let role: EventRole
    let viewerID: String
    let services: AppServices

    /// The change as this viewer's JSON text (an SSE `data:` line).
    func payload(_ change: Change, event: Event) throws -> String {
        let object = try self.object(change, event: event)
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    func object(_ change: Change, event: Event) throws -> [String: Any] {
        guard var object = try JSONSerialization.jsonObject(with: change.payload) as? [String: Any] else { return [:] }
        let isMine = change.uploaderID == viewerID
        if var photo = object["photo"] as? [String: Any] {
            let hidden = role == .guest && !isMine && !Reveal.isRevealed(event, at: services.clock.now)
            if hidden {
                // The shape of the news without its content: enough to count "developing" photos.
                object["photo"] = nil
                object["developing"] = true
            } else {
                photo["mine"] = isMine
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
