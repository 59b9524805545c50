// The view models of the organizers' pages (`OrganizerPages`). Templates read their stored properties by name.
import DisposableCore
import DisposableFeatures
import DisposablePlatform

package struct LoginPage: Sendable {
    /// Where to go once signed in (a local path).
    package let next: String
    package var email: String? = nil
    package var error: String? = nil
    package var notice: String? = nil
    /// The OpenID Connect provider's button, when the instance has one.
    package var openID: OpenIDButton? = nil
    /// Whether the password form shows (`--oidc-only` hides it).
    package var passwords = true

    /// The button's words: the admin's, or "Sign in with single sign-on" in the reader's language.
    package static func button(_ settings: OpenIDSettings?, _ web: WebRequest) -> OpenIDButton? {
        settings.map { OpenIDButton(label: $0.buttonLabel ?? web.t("openid_button")) }
    }
}

/// The provider's button on the sign-in and registration pages.
package struct OpenIDButton: Sendable {
    package let label: String
}

/// `/events`: the events an organizer runs or joined, live and upcoming first.
package struct DashboardPage: Sendable {
    package struct Item: Sendable {
        package let id: String
        package let name: String
        package let code: String
        package let statusText: String
        package let status: String
        package let startsAt: TimeText
        /// "1 guest", "3 guests", "0 invité".
        package let guests: String
        package let isOrganizer: Bool
        /// The newest photos this person sees there, to the gallery in one tap (photos of all events in one place).
        package let thumbnails: [Thumbnail]
        package let hasThumbnails: Bool
        /// "See the 24 photos", for the strip's link.
        package let photosLabel: String
    }

    package struct Thumbnail: Sendable {
        package let url: String
    }

    /// ADM-5: what the account's events use of its quota; a warning from 90 %.
    package struct Storage: Sendable {
        package let text: String
        package let percent: Int
        package let nearlyFull: Bool
    }

    package let active: [Item]
    package let past: [Item]
    package let hasActive: Bool
    package let hasPast: Bool
    package let storage: Storage?
}

package struct NewEventPage: Sendable {
    package let form: EventForm.View
}

/// `/events/{id}`: invite, numbers, photos, settings, end, delete (ORG-1..4).
package struct ManagePage: Sendable {
    /// A guest in the list the organizer can remove someone from (ORG-3).
    package struct Guest: Sendable {
        package let id: String
        package let name: String
        package let photosText: String
        package let confirm: String
        package let face: Face

        package init(id: String, name: String, photosText: String, confirm: String, face: Face) {
            self.id = id
            self.name = name
            self.photosText = photosText
            self.confirm = confirm
            self.face = face
        }
    }

    package let event: EventView
    package let form: EventForm.View
    package let saved: Bool
    package let created: Bool
    package let guests: [Guest]
    package let hasGuests: Bool
    /// A guest was just removed.
    package let removed: Bool
    /// The organizer's only event, before its first photo: a short guide on top (seed 001's onboarding).
    package let firstEvent: Bool
    package let organizers: Organizers

    /// ORG-5: who organizes the event; the owner invites and removes, a co-organizer may leave.
    package struct Organizers: Sendable {
        package struct Person: Sendable {
            package let id: String
            package let name: String
            package let face: Face
            package let isOwner: Bool
            package let isMe: Bool
            /// The owner may remove this co-organizer, or this is me leaving.
            package let removable: Bool
            package let confirm: String
        }

        package let isOwner: Bool
        package let people: [Person]
        /// Just accepted: whose event this is now also mine.
        package let welcome: String?
        /// A link just made, shown once.
        package let invitationURL: String?
        package let invitationExpires: String?
    }
}

/// ORG-5: the page an invitation to co-organize opens.
package struct CoOrganizeInvitationPage: Sendable {
    package let token: String
    package let eventName: String
    package let ownerName: String
    /// Nil when nobody is signed in: the page asks to sign in or create an account first.
    package let signedInAs: String?
    package let loginURL: String
    package let registerURL: String
}

/// QR-3: the printable table card.
package struct CardPage: Sendable {
    package struct EventSummary: Sendable {
        package let id: String
        package let name: String
        package let code: String
        package let joinURL: String
    }

    package let event: EventSummary
    package let qrSVG: String
    /// "A6" or "A5".
    package let pageSize: String
    /// The stylesheet that sets the printed sheet's size (sections do not run inside a layout's blocks).
    package let sheetStylesheet: String
}
