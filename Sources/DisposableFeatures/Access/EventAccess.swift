import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Who may do what in an event — the roles' rules, written once. An event's owner and its co-organizers organize it
/// (`EventService` says who they are; only the owner deletes it and chooses who organizes); everyone else in it is a
/// guest under a name. Services ask this, and pages are told what it decided; nothing else compares roles.
package struct EventAccess: Sendable, Equatable {
    package let role: EventRole

    package init(_ role: EventRole) { self.role = role }

    /// Organizes the event: edits it, approves and removes photos and guests, opens its wall and its numbers.
    package var organizes: Bool { role == .organizer }

    /// Is in it under a name: may leave, correct that name, and make a link to go on from another phone.
    package var isGuest: Bool { role == .guest }

    /// Sees every photo now, whatever the reveal, the approval or the render say.
    package var seesEverything: Bool { organizes }

    /// May download the event's originals: organizers always, guests where the event lets them.
    package func mayDownload(in event: Event) -> Bool { organizes || event.allowGuestDownloads }

    /// May add photos from the phone's library: organizers always, guests where the event lets them.
    package func mayAddFromLibrary(to event: Event) -> Bool { organizes || event.allowLibraryUploads }

    /// May delete a photo: its shooter, or whoever organizes the event.
    package func mayDelete(photoBy uploaderID: String, viewerID: String) -> Bool { organizes || uploaderID == viewerID }

    /// Sees the recap before it is ready (a preview).
    package var previewsRecap: Bool { organizes }

    /// Refuses whoever does not organize the event (a guest asking for an organizer's action).
    package func requireOrganizer(_ refusal: Problem) throws {
        guard organizes else { throw refusal }
    }
}
