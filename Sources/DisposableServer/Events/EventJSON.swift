import Foundation

/// An event as the API shows it.
struct EventJSON: Encodable, Sendable {
    struct Reveal: Encodable, Sendable {
        let mode: RevealMode
        let at: Date?
    }

    let id: String
    let code: String
    let joinURL: String
    let name: String
    let description: String
    let status: EventStatus
    let startsAt: Date
    let endsAt: Date
    let deletesAt: Date
    let shotsPerGuest: Int
    let reveal: Reveal
    /// When the general gallery opens, whatever the mode.
    let revealsAt: Date
    let allowLibraryUploads: Bool
    let allowGuestDownloads: Bool
    let hasPassword: Bool
    let maxGuests: Int?
    /// ORG-4: guests' photos wait for the organizer's approval.
    let requireApproval: Bool
    let guestCount: Int
    /// True once the first photo is taken: most settings are then locked (EV-2).
    let settingsLocked: Bool
    /// How the caller relates to the event: `organizer` or `guest`.
    let role: EventRole
    let createdAt: Date

    init(_ event: Event, role: EventRole, services: AppServices) {
        id = event.id
        code = event.code.description
        joinURL = joinURLString(for: event.code, baseURL: services.configuration.publicBaseURL)
        name = event.name
        description = event.description
        status = event.status(at: services.clock.now)
        startsAt = event.startsAt
        endsAt = event.endsAt
        deletesAt = event.deletesAt(retention: services.configuration.retention)
        shotsPerGuest = event.shotsPerGuest
        reveal = Reveal(mode: event.revealMode, at: event.revealMode == .at ? event.revealAt : nil)
        revealsAt = event.revealsAt
        allowLibraryUploads = event.allowLibraryUploads
        allowGuestDownloads = event.allowGuestDownloads
        hasPassword = event.passwordHash != nil
        maxGuests = event.maxGuests
        requireApproval = event.requireApproval
        guestCount = event.guestCount
        settingsLocked = event.hasPhotos
        self.role = role
        createdAt = event.createdAt
    }
}

/// The address a QR code opens: `https://HOST/e/CODE` (QR-1).
func joinURLString(for code: EventCode, baseURL: String) -> String {
    "\(baseURL)/e/\(code)"
}
