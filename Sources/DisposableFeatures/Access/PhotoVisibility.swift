import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Who may see which photo now — the one rule, in Swift and as the matching SQL condition. The gallery, the
/// media routes, the ZIP and the change feed all ask it.
///
/// The organizer sees every photo of their event, and a shooter their own, whatever their state. Anyone else
/// sees a photo once it is ready, approved (ORG-4) and the gallery is revealed (GAL-2).
package struct PhotoVisibility: Sendable {
    package let role: EventRole
    package var access: EventAccess { EventAccess(role) }
    /// The viewer's uploader id in the event (guest id, or the organizer's user id).
    package let viewerID: String
    /// Whether the general gallery is open now.
    package let revealed: Bool

    package init(event: Event, role: EventRole, viewerID: String, now: Date) {
        self.role = role
        self.viewerID = viewerID
        revealed = Self.isRevealed(event, at: now)
    }

    /// Whether the general gallery is open (GAL-2), decided at every request from the mode and the clock.
    package static func isRevealed(_ event: Event, at now: Date) -> Bool {
        now >= event.revealsAt
    }

    package func canSee(_ photo: Photo) -> Bool {
        access.seesEverything || photo.uploaderID == viewerID || (revealed && Self.isShownToEveryone(photo))
    }

    /// The same rule over `photos` columns, for lists.
    package var sqlCondition: SQLQueryString {
        if access.seesEverything { return "TRUE" }
        if !revealed { return "uploader_id = \(bind: viewerID)" }
        return "(uploader_id = \(bind: viewerID) OR \(Self.shownToEveryone))"
    }

    /// What every guest sees once the gallery is open: ready, and approved where the organizer approves (ORG-4).
    /// The recap (CAP-1) chooses among these, and its notice waits for one of them.
    package static func isShownToEveryone(_ photo: Photo) -> Bool { photo.status == .ready && photo.approved }

    /// The same over `photos` columns.
    package static let shownToEveryone: SQLQueryString = "(status = 'ready' AND approved)"

    /// The shared gallery shows guests nothing before the reveal (their own shots are in "My shots").
    package var galleryIsOpen: Bool { access.seesEverything || revealed }

    /// Whether the viewer may download this (visible) photo's original: the organizer turns downloads off for guests.
    package func mayDownloadOriginal(of photo: Photo, in event: Event) -> Bool {
        photo.uploaderID == viewerID || access.mayDownload(in: event)
    }

    /// What a live change about someone's photo may tell the viewer. The feed announces photos as they are
    /// added, before they are ready; until the reveal or the approval it tells only that there is one.
    package enum Disclosure { case whole, awaitingApproval, developing }

    package func disclosure(uploaderID: String?, approved: Bool) -> Disclosure {
        guard access.isGuest, uploaderID != viewerID else { return .whole }
        if !approved { return .awaitingApproval }
        return revealed ? .whole : .developing
    }
}
