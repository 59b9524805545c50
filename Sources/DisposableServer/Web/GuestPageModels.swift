// The view models of the guests' pages (`GuestPages`). Templates read their stored properties by name.

/// `/`: join by code, the events this browser joined (EV-4), organizing.
struct HomePage: Sendable {
    struct Joined: Sendable {
        let name: String
        let code: String
        let guestName: String
        let statusText: String
        let endsAt: TimeText
    }

    let joined: [Joined]
    let hasJoined: Bool
    /// Just left an event (JN-3).
    let left: Bool
    /// A code that did not work, shown again to be corrected.
    let typedCode: String
    let codeError: String?
    let registrationOpen: Bool
}

/// `/e/CODE` for someone who has not joined: name, terms, the event's password if it has one.
struct JoinPage: Sendable {
    struct EventSummary: Sendable {
        let name: String
        let code: String
        let hasPassword: Bool
        let statusText: String
        /// Over: joining is to see and download, no longer to shoot.
        let isEnded: Bool
        let description: String?
    }

    let event: EventSummary
    /// The QR link's key, carried into the form so the join skips the guess limiter.
    let key: String?
    let name: String
    let termsVersion: String
    let error: String?
}

/// The pages of an event for its members: gallery, "My shots", camera, wall.
struct EventPage: Sendable {
    /// Which tab of the guests' navigation is open, and what the page shows.
    struct Tabs: Sendable {
        var tabAll = false
        var tabMine = false
        var tabCamera = false
        /// "My shots" rather than the general gallery.
        var mine = false
        /// The camera's first opening, right after joining.
        var welcome = false
    }

    let event: EventView
    // Stored, not computed: templates read stored properties.
    let tabAll, tabMine, tabCamera, mine, welcome: Bool

    init(event: EventView, tabs: Tabs) {
        self.event = event
        (tabAll, tabMine, tabCamera, mine, welcome) = (tabs.tabAll, tabs.tabMine, tabs.tabCamera, tabs.mine, tabs.welcome)
    }
}

/// "Continue on another phone" (JN-5).
struct ContinuePage: Sendable {
    let event: EventView
    /// With an account, the other phone signs in instead.
    let signedIn: Bool
    let tabMore = true
    var link: String? = nil
    var qrSVG: String? = nil
    var expiresAt: TimeText? = nil
    var guestName: String? = nil
    /// The guest just stopped their link: no new one until they ask.
    var stopped = false
    /// The guest's name, to correct.
    var name: NameForm? = nil

    struct NameForm: Sendable {
        let current: String
        let saved: Bool
        let error: String?
    }
}

/// `/c/TOKEN`: the second phone confirms before it becomes the guest.
struct RedeemPage: Sendable {
    let token: String
    let eventName: String
    let guestName: String
    /// The account this browser is signed in with, which continuing replaces here.
    let signedInAs: String?
}
