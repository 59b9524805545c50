// The view models of the organizers' pages (`OrganizerPages`). Templates read their stored properties by name.

struct LoginPage: Sendable {
    /// Where to go once signed in (a local path).
    let next: String
    var email: String? = nil
    var error: String? = nil
    var notice: String? = nil
    /// The OpenID Connect provider's button, when the instance has one.
    var openID: OpenIDButton? = nil
    /// Whether the password form shows (`--oidc-only` hides it).
    var passwords = true

    /// The button's words: the admin's, or "Sign in with single sign-on" in the reader's language.
    static func button(_ settings: OpenIDSettings?, _ web: WebRequest) -> OpenIDButton? {
        settings.map { OpenIDButton(label: $0.buttonLabel ?? web.t("openid_button")) }
    }
}

/// The provider's button on the sign-in and registration pages.
struct OpenIDButton: Sendable {
    let label: String
}

/// `/events`: the events an organizer runs or joined, live and upcoming first.
struct DashboardPage: Sendable {
    struct Item: Sendable {
        let id: String
        let name: String
        let code: String
        let statusText: String
        let status: String
        let startsAt: TimeText
        /// "1 guest", "3 guests", "0 invité".
        let guests: String
        let isOrganizer: Bool
        /// The newest photos this person sees there, to the gallery in one tap (photos of all events in one place).
        let thumbnails: [Thumbnail]
        let hasThumbnails: Bool
        /// "See the 24 photos", for the strip's link.
        let photosLabel: String
    }

    struct Thumbnail: Sendable {
        let url: String
    }

    /// ADM-5: what the account's events use of its quota; a warning from 90 %.
    struct Storage: Sendable {
        let text: String
        let percent: Int
        let nearlyFull: Bool
    }

    let active: [Item]
    let past: [Item]
    let hasActive: Bool
    let hasPast: Bool
    let storage: Storage?
}

struct NewEventPage: Sendable {
    let form: EventForm.View
}

/// `/events/{id}`: invite, numbers, photos, settings, end, delete (ORG-1..4).
struct ManagePage: Sendable {
    /// A guest in the list the organizer can remove someone from (ORG-3).
    struct Guest: Sendable {
        let id: String
        let name: String
        let photosText: String
        let confirm: String
        let face: Face
    }

    let event: EventView
    let form: EventForm.View
    let saved: Bool
    let created: Bool
    let guests: [Guest]
    let hasGuests: Bool
    /// A guest was just removed.
    let removed: Bool
    /// The organizer's only event, before its first photo: a short guide on top (seed 001's onboarding).
    let firstEvent: Bool
    let organizers: Organizers

    /// ORG-5: who organizes the event; the owner invites and removes, a co-organizer may leave.
    struct Organizers: Sendable {
        struct Person: Sendable {
            let id: String
            let name: String
            let face: Face
            let isOwner: Bool
            let isMe: Bool
            /// The owner may remove this co-organizer, or this is me leaving.
            let removable: Bool
            let confirm: String
        }

        let isOwner: Bool
        let people: [Person]
        /// Just accepted: whose event this is now also mine.
        let welcome: String?
        /// A link just made, shown once.
        let invitationURL: String?
        let invitationExpires: String?
    }
}

/// ORG-5: the page an invitation to co-organize opens.
struct CoOrganizeInvitationPage: Sendable {
    let token: String
    let eventName: String
    let ownerName: String
    /// Nil when nobody is signed in: the page asks to sign in or create an account first.
    let signedInAs: String?
    let loginURL: String
    let registerURL: String
}

/// QR-3: the printable table card.
struct CardPage: Sendable {
    struct EventSummary: Sendable {
        let id: String
        let name: String
        let code: String
        let joinURL: String
    }

    let event: EventSummary
    let qrSVG: String
    /// "A6" or "A5".
    let pageSize: String
    /// The stylesheet that sets the printed sheet's size (sections do not run inside a layout's blocks).
    let sheetStylesheet: String
}
