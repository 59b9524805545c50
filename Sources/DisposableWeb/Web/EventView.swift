import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation

/// What the event pages and their scripts show of an event, for one viewer.
package struct EventView: Sendable {
    package static let deletionWarning = EventRules.deletionWarning

    package let id: String
    package let code: String
    package let name: String
    package let description: String?
    /// The QR code's and share's link, with the join key.
    package let joinURL: String
    /// The short link people type, without the key.
    package let typedURL: String
    package let status: String
    package let statusText: String
    package let isLive: Bool
    package let isEnded: Bool
    package let isScheduled: Bool
    package let startsAt: TimeText
    package let endsAt: TimeText
    package let deletesAt: TimeText
    package let revealsAt: TimeText
    package let isOrganizer: Bool
    package let isGuest: Bool
    package let allowLibraryUploads: Bool
    /// SOC-4: the camera records short videos too.
    package let allowVideos: Bool
    package let allowGuestDownloads: Bool
    package let deletionSoon: Bool
    package let deletionCountdown: String
    /// CAP-1: the gallery links to the recap — for guests once it is ready, for the organizer always (a preview).
    package let recapOpen: Bool
    package let guestName: String?
    package let shotsLeft: Int?
    /// The organizer's ready-made invitation (QR-2).
    package var shareText: String?
    /// The venue wall's link, on the organizer's page while there is one (GAL-5).
    package var wallURL: String?
    /// The same facts as JSON for the page's scripts, safe inside `<script type="application/json">`.
    package let config: String

    package init(event: Event, role: EventRole, guest: Guest?, now: Date, links: InstanceLinks, web: WebRequest) {
        let status = event.status(at: now)
        let deletesAt = event.deletesAt(retention: links.retention)
        let shotsLeft = guest.map { $0.shotsLeft(of: event.shotsPerGuest) }
        let daysLeft = max(0, Int((deletesAt.timeIntervalSince(now) / 86_400).rounded(.up)))
        id = event.id
        code = event.code.description
        name = event.name
        description = event.description.isEmpty ? nil : event.description
        joinURL = links.join(event)
        typedURL = links.typed(event.code)
        self.status = status.rawValue
        statusText = web.t("status_\(status.rawValue)")
        (isLive, isEnded, isScheduled) = (status == .live, status == .ended, status == .scheduled)
        startsAt = web.time(event.startsAt)
        endsAt = web.time(event.endsAt)
        self.deletesAt = web.time(deletesAt)
        revealsAt = web.time(event.revealsAt)
        let access = EventAccess(role)
        isOrganizer = access.organizes
        isGuest = access.isGuest
        allowLibraryUploads = access.mayAddFromLibrary(to: event)
        allowGuestDownloads = access.mayDownload(in: event)
        allowVideos = event.allowVideos
        deletionSoon = deletesAt.timeIntervalSince(now) < Self.deletionWarning
        recapOpen = access.previewsRecap || now >= RecapService.readyAt(event)
        deletionCountdown = web.t(daysLeft <= 1 ? "event_deletes_tomorrow" : "event_deletes_in_days", ["days": "\(daysLeft)"])
        guestName = guest?.name
        self.shotsLeft = shotsLeft
        let iso = Date.ISO8601FormatStyle()
        let config = Config(
            id: event.id, code: event.code.description, name: event.name, role: role, status: status,
            revealed: PhotoVisibility.isRevealed(event, at: now), revealsAt: event.revealsAt.formatted(iso),
            startsAt: event.startsAt.formatted(iso), endsAt: event.endsAt.formatted(iso), allowLibraryUploads: allowLibraryUploads,
            allowGuestDownloads: allowGuestDownloads, allowVideos: allowVideos, shotsPerGuest: event.shotsPerGuest, shotsLeft: shotsLeft,
            guestId: guest?.id, hasAccount: { if case .user = web.identity { true } else { false } }(),
            firstLook: .init(side: FirstLook.maxSide, bytes: FirstLook.maxBytes))
        self.config = ScriptJSON.text(config)
    }

    /// What the scripts read (`#event-config`).
    package struct Config: Encodable {
        package let id, code, name: String
        package let role: EventRole
        package let status: EventStatus
        package let revealed: Bool
        package let revealsAt, startsAt, endsAt: String
        package let allowLibraryUploads, allowGuestDownloads, allowVideos: Bool
        package let shotsPerGuest: Int
        package let shotsLeft: Int?
        package let guestId: String?
        /// Signed in with an account: the viewer offers to keep a photo in the library (LIB-6).
        package let hasAccount: Bool
        /// What the server takes as a photo's first look: the phone makes its own within these.
        package let firstLook: FirstLookLimits
    }

    package struct FirstLookLimits: Encodable {
        package let side, bytes: Int
    }
}

/// JSON for a page's `<script type="application/json">`: no `<` inside, so no `</script>` can end it early.
package enum ScriptJSON {
    package static func text(_ value: some Encodable) -> String {
        let data = (try? JSONEncoder.sorted.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
