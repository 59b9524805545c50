import DisposableAPI
import Foundation

/// What the event pages and their scripts show of an event, for one viewer.
struct EventView: Sendable {
    /// RET-3: guests are warned in the last days before everything disappears.
    static let deletionWarning: TimeInterval = 3 * 86_400

    let id: String
    let code: String
    let name: String
    let description: String?
    /// The QR code's and share's link, with the join key.
    let joinURL: String
    /// The short link people type, without the key.
    let typedURL: String
    let status: String
    let statusText: String
    let isLive: Bool
    let isEnded: Bool
    let isScheduled: Bool
    let startsAt: TimeText
    let endsAt: TimeText
    let deletesAt: TimeText
    let revealsAt: TimeText
    let isOrganizer: Bool
    let isGuest: Bool
    let allowLibraryUploads: Bool
    /// SOC-4: the camera records short videos too.
    let allowVideos: Bool
    let allowGuestDownloads: Bool
    let deletionSoon: Bool
    let deletionCountdown: String
    /// CAP-1: the gallery links to the recap — for guests once it is ready, for the organizer always (a preview).
    let recapOpen: Bool
    let guestName: String?
    let shotsLeft: Int?
    /// The organizer's ready-made invitation (QR-2).
    var shareText: String?
    /// The venue wall's link, on the organizer's page while there is one (GAL-5).
    var wallURL: String?
    /// The same facts as JSON for the page's scripts, safe inside `<script type="application/json">`.
    let config: String

    init(event: Event, role: EventRole, guest: Guest?, now: Date, links: InstanceLinks, web: WebRequest) {
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
    struct Config: Encodable {
        let id, code, name: String
        let role: EventRole
        let status: EventStatus
        let revealed: Bool
        let revealsAt, startsAt, endsAt: String
        let allowLibraryUploads, allowGuestDownloads, allowVideos: Bool
        let shotsPerGuest: Int
        let shotsLeft: Int?
        let guestId: String?
        /// Signed in with an account: the viewer offers to keep a photo in the library (LIB-6).
        let hasAccount: Bool
        /// What the server takes as a photo's first look: the phone makes its own within these.
        let firstLook: FirstLookLimits
    }

    struct FirstLookLimits: Encodable {
        let side, bytes: Int
    }
}

/// JSON for a page's `<script type="application/json">`: no `<` inside, so no `</script>` can end it early.
enum ScriptJSON {
    static func text(_ value: some Encodable) -> String {
        let data = (try? JSONEncoder.sorted.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
