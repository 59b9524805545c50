import DisposableAPI
import Foundation

/// What the event pages and their scripts need to know about an event, for one viewer.
struct EventPageData {
    let event: Event
    let role: EventRole
    let guest: Guest?
    let now: Date
    let links: InstanceLinks
    let web: WebRequest

    /// RET-3: guests are warned in the last days before everything disappears.
    static let deletionWarning: TimeInterval = 3 * 86_400

    var values: [String: Any] {
        let status = event.status(at: now)
        let deletesAt = event.deletesAt(retention: links.retention)
        let revealed = PhotoVisibility.isRevealed(event, at: now)
        let shotsLeft = guest.map { max(0, event.shotsPerGuest - $0.shotsUsed) }
        let daysLeft = max(0, Int((deletesAt.timeIntervalSince(now) / 86_400).rounded(.up)))
        var values: [String: Any] = [
            "id": event.id, "code": event.code.description, "name": event.name, "description": event.description,
            "joinURL": links.join(event.code),
            "status": status.rawValue, "statusText": web.t("status_\(status.rawValue)"),
            "isLive": status == .live, "isEnded": status == .ended, "isScheduled": status == .scheduled,
            "startsAt": web.time(event.startsAt), "endsAt": web.time(event.endsAt), "deletesAt": web.time(deletesAt),
            "deletesOn": web.date(deletesAt), "revealsAt": web.time(event.revealsAt),
            "revealed": revealed, "revealLater": event.revealMode != .now,
            "isOrganizer": role == .organizer, "isGuest": role == .guest,
            "allowLibraryUploads": event.allowLibraryUploads || role == .organizer,
            "allowGuestDownloads": event.allowGuestDownloads || role == .organizer,
            "shotsPerGuest": event.shotsPerGuest, "guestCount": event.guestCount,
            "deletionSoon": deletesAt.timeIntervalSince(now) < Self.deletionWarning,
            "deletionCountdown": web.t(daysLeft <= 1 ? "event_deletes_tomorrow" : "event_deletes_in_days", ["days": "\(daysLeft)"]),
            "config": config(status: status, revealed: revealed, shotsLeft: shotsLeft),
        ]
        if event.description.isEmpty { values["description"] = nil }
        if let guest { values["guestName"] = guest.name }
        if let shotsLeft { values["shotsLeft"] = shotsLeft }
        return values
    }

    /// The same facts as JSON for the page's scripts, safe inside `<script type="application/json">`.
    private func config(status: EventStatus, revealed: Bool, shotsLeft: Int?) -> String {
        let iso = Date.ISO8601FormatStyle()
        var object: [String: Any] = [
            "id": event.id, "code": event.code.description, "name": event.name, "role": role.rawValue, "status": status.rawValue,
            "revealed": revealed, "revealsAt": event.revealsAt.formatted(iso), "startsAt": event.startsAt.formatted(iso),
            "endsAt": event.endsAt.formatted(iso), "allowLibraryUploads": event.allowLibraryUploads || role == .organizer,
            "allowGuestDownloads": event.allowGuestDownloads || role == .organizer, "shotsPerGuest": event.shotsPerGuest,
        ]
        if let shotsLeft { object["shotsLeft"] = shotsLeft }
        if let guest { object["guestId"] = guest.id }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
