// The view models of the guests' pages (`GuestPages`). Templates read their stored properties by name.
import DisposableCore
import DisposableFeatures
import DisposablePlatform

/// `/`: join by code, the events this browser joined (EV-4), organizing.
package struct HomePage: Sendable {
    package struct Joined: Sendable {
        package let name: String
        package let code: String
        package let guestName: String
        package let statusText: String
        package let endsAt: TimeText
    }

    package let joined: [Joined]
    package let hasJoined: Bool
    /// Just left an event (JN-3).
    package let left: Bool
    /// A code that did not work, shown again to be corrected.
    package let typedCode: String
    package let codeError: String?
    package let registrationOpen: Bool
}

/// `/e/CODE` for someone who has not joined: name, terms, the event's password if it has one.
package struct JoinPage: Sendable {
    package struct EventSummary: Sendable {
        package let name: String
        package let code: String
        package let hasPassword: Bool
        package let statusText: String
        /// Over: joining is to see and download, no longer to shoot.
        package let isEnded: Bool
        package let description: String?
    }

    package let event: EventSummary
    /// The QR link's key, carried into the form so the join skips the guess limiter.
    package let key: String?
    package let name: String
    package let termsVersion: String
    package let error: String?
}

/// The pages of an event for its members: gallery, "My shots", camera, wall.
package struct EventPage: Sendable {
    /// Which tab of the guests' navigation is open, and what the page shows.
    package struct Tabs: Sendable {
        package var tabAll = false
        package var tabMine = false
        package var tabCamera = false
        /// "My shots" rather than the general gallery.
        package var mine = false
        /// The camera's first opening, right after joining.
        package var welcome = false
    }

    package let event: EventView
    // Stored, not computed: templates read stored properties.
    package let tabAll, tabMine, tabCamera, mine, welcome: Bool

    package init(event: EventView, tabs: Tabs) {
        self.event = event
        (tabAll, tabMine, tabCamera, mine, welcome) = (tabs.tabAll, tabs.tabMine, tabs.tabCamera, tabs.mine, tabs.welcome)
    }
}

/// "Continue on another phone" (JN-5).
package struct ContinuePage: Sendable {
    package let event: EventView
    /// With an account, the other phone signs in instead.
    package let signedIn: Bool
    package let tabMore = true
    package var link: String? = nil
    package var qrSVG: String? = nil
    package var expiresAt: TimeText? = nil
    package var guestName: String? = nil
    /// The guest just stopped their link: no new one until they ask.
    package var stopped = false
    /// The guest's name, to correct.
    package var name: NameForm? = nil

    package struct NameForm: Sendable {
        package let current: String
        package let saved: Bool
        package let error: String?
    }
}

/// `/c/TOKEN`: the second phone confirms before it becomes the guest.
package struct RedeemPage: Sendable {
    package let token: String
    package let eventName: String
    package let guestName: String
    /// The account this browser is signed in with, which continuing replaces here.
    package let signedInAs: String?
}
