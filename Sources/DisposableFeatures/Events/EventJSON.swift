import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

extension EventJSON {
    /// An event as `role` sees it at `now`; `owner` says, to an organizer, whether they own it.
    package init(_ event: Event, role: EventRole, owner: Bool? = nil, now: Date, links: InstanceLinks) {
        self.init(
            id: event.id, code: event.code.description, joinURL: links.join(event), name: event.name,
            description: event.description, status: event.status(at: now), startsAt: event.startsAt, endsAt: event.endsAt,
            deletesAt: event.deletesAt(retention: links.retention), shotsPerGuest: event.shotsPerGuest,
            reveal: Reveal(mode: event.revealMode, at: event.revealMode == .at ? event.revealAt : nil), revealsAt: event.revealsAt,
            allowLibraryUploads: event.allowLibraryUploads, allowGuestDownloads: event.allowGuestDownloads,
            hasPassword: event.passwordHash != nil, maxGuests: event.maxGuests, requireApproval: event.requireApproval,
            postsCountAsShots: event.postsCountAsShots, allowVideos: event.allowVideos, guestCount: event.guestCount, settingsLocked: event.hasPhotos,
            role: role, owner: EventAccess(role).organizes ? owner : nil,
            createdAt: event.createdAt)
    }
}

/// What the addresses and dates an instance hands out depend on: its public address and its retention.
package struct InstanceLinks: Sendable {
    /// e.g. `https://photos.example.org`, no trailing slash.
    package let publicBaseURL: String
    package let retention: TimeInterval

    package init(publicBaseURL: String, retention: TimeInterval) {
        self.publicBaseURL = publicBaseURL
        self.retention = retention
    }

    /// The address a QR code and a share open: `https://HOST/e/CODE?k=KEY` (QR-1). The key lets its holders
    /// join without going through the limiter that slows down people guessing codes.
    package func join(_ event: Event) -> String { "\(publicBaseURL)/e/\(event.code)?k=\(event.joinKey)" }

    /// The short address people type: `https://HOST/e/CODE`.
    package func typed(_ code: EventCode) -> String { "\(publicBaseURL)/e/\(code)" }
}
