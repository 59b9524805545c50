import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Events (EV-1..4): who may see one, creating, editing, ending and deleting. Controllers and pages only
/// parse, ask here, and render.
package struct EventService: Sendable {
    private let events: EventRepository
    private let guests: GuestRepository
    let coOrganizers: CoOrganizerRepository
    package let passwords: PasswordHasher
    package let clock: any AppClock
    package let links: InstanceLinks
    /// How a read (the gallery list) finds an event row: may be from memory for a second (`RememberedEvents`).
    package let readEvent: @Sendable (String) async throws -> Event?
    package let changes: ChangeHub
    package let deletion: EventDeletion

    init(
        events: EventRepository, guests: GuestRepository, coOrganizers: CoOrganizerRepository, passwords: PasswordHasher, clock: any AppClock,
        links: InstanceLinks,
        readEvent: @escaping @Sendable (String) async throws -> Event?, changes: ChangeHub, deletion: EventDeletion
    ) {
        self.events = events
        self.guests = guests
        self.coOrganizers = coOrganizers
        self.passwords = passwords
        self.clock = clock
        self.links = links
        self.readEvent = readEvent
        self.changes = changes
        self.deletion = deletion
    }

    package static let notFound = Problem.notFound("There is no event with this id, or you have not joined it.")
    package static let organizerOnly = Problem(
        .forbidden, "organizer-only", title: "Organizer only",
        detail: "Only the organizer of this event can do this.")
    package static let ownerOnly = Problem(
        .forbidden, "owner-only", title: "Owner only",
        detail: "Only the event's owner can do this; its co-organizers cannot.")

    // MARK: Who sees an event

    /// The event and the caller's role in it. Its organizers (owner and co-organizers) and its guests see it; everyone else gets 404, so
    /// that ids of other people's events cannot even be confirmed; anonymous callers get 401. A read
    /// (`forRead`) may get the row as it was up to a second ago, unless something changed since.
    package func event(_ id: String, for identity: Identity?, forRead: Bool = false) async throws -> (Event, EventRole) {
        guard let identity else { throw Problem.unauthorized }
        let found = forRead ? try await readEvent(id) : try await events.find(id: id)
        guard let event = found, isKept(event) else { throw Self.notFound }
        switch identity {
        case .user(let user, _):
            if try await organizes(event, userID: user.id) { return (event, .organizer) }
            if try await guests.activeMembership(userID: user.id, eventID: id) != nil { return (event, .guest) }
        case .guest(let guest, _):
            if guest.eventID == event.id { return (event, .guest) }
        }
        throw Self.notFound
    }

    /// The event if the caller organizes it (owner or co-organizer); 403 for its guests.
    package func organizedEvent(_ id: String, for identity: Identity?) async throws -> Event {
        let (event, role) = try await event(id, for: identity)
        try EventAccess(role).requireOrganizer(Self.organizerOnly)
        return event
    }

    /// The event if the caller owns it; 403 for its co-organizers and guests. Deleting it and choosing who
    /// organizes it are the owner's alone (its storage is theirs).
    package func ownedEvent(_ id: String, for identity: Identity?) async throws -> Event {
        let event = try await organizedEvent(id, for: identity)
        guard isOwner(of: event, identity) else { throw Self.ownerOnly }
        return event
    }

    /// Whether `identity` is the account that owns `event`.
    package func isOwner(of event: Event, _ identity: Identity?) -> Bool {
        if case .user(let user, _) = identity { return user.id == event.organizerID }
        return false
    }

    /// Whether the account organizes the event: owns it or was made a co-organizer.
    package func organizes(_ event: Event, userID: String) async throws -> Bool {
        if event.organizerID == userID { return true }
        return try await coOrganizers.contains(eventID: event.id, userID: userID)
    }

    /// The id a caller's photos are recorded under in this event (guest id, or the organizer's user id).
    package func viewerID(in event: Event, role: EventRole, identity: Identity) async throws -> String {
        switch identity {
        case .guest(let guest, _): return guest.id
        case .user(let user, _):
            if EventAccess(role).organizes { return user.id }
            return try await guests.activeMembership(userID: user.id, eventID: event.id)?.id ?? user.id
        }
    }

    /// The event with this id as stored now, kept or not, without asking who may see it: for callers that already
    /// hold a grant to it (a guest's own event, a live stream re-reading its event).
    package func find(id: String) async throws -> Event? {
        try await events.find(id: id)
    }

    /// The event a wall key opens, kept or not.
    package func find(wallKey: String) async throws -> Event? {
        try await events.find(wallKey: wallKey)
    }

    /// Sets or clears an event's wall key; with `replacing` false, only when it has none yet.
    package func setWallKey(eventID: String, _ key: String?, replacing: Bool) async throws {
        try await events.setWallKey(eventID: eventID, key, replacing: replacing)
    }

    /// The event a code names, while it is kept (after `deletesAt` the code is unknown).
    package func event(code: EventCode) async throws -> Event? {
        try await events.find(code: code).flatMap { isKept($0) ? $0 : nil }
    }

    /// The events an identity organizes or joined (EV-4), with its role in each.
    package func list(for identity: Identity) async throws -> [(Event, EventRole)] {
        switch identity {
        case .user(let user, _):
            return try await list(for: user)
        case .guest(let guest, _):
            return (try await events.find(id: guest.eventID)).flatMap { isKept($0) ? [($0, .guest)] : nil } ?? []
        }
    }

    /// The events an account organizes (owns or co-organizes) or joined as a guest, newest first.
    package func list(for user: User) async throws -> [(Event, EventRole)] {
        let coOrganized = try await coOrganizers.eventIDs(userID: user.id)
        return try await events.list(forUser: user.id).filter(isKept).map {
            ($0, $0.organizerID == user.id || coOrganized.contains($0.id) ? .organizer : .guest)
        }
    }

    /// Counts a download of the event for its organizers' numbers: a ZIP, or one original saved.
    func countDownload(eventID: String, _ kind: EventRepository.Download) async throws {
        try await events.countDownload(eventID: eventID, kind)
    }

    /// How often the event was downloaded: ZIPs, originals.
    package func downloads(of event: Event) async throws -> (zips: Int, originals: Int) {
        try await events.downloads(eventID: event.id)
    }

    /// Expired events are deleted by the sweeper; until then they are already invisible.
    package func isKept(_ event: Event) -> Bool {
        clock.now < event.deletesAt(retention: links.retention)
    }

    /// The event as the API shows it to `identity` in `role`, now.
    package func json(_ event: Event, role: EventRole, for identity: Identity?) -> EventJSON {
        EventJSON(event, role: role, owner: isOwner(of: event, identity), now: clock.now, links: links)
    }

    // MARK: Changing events

    /// Validates the settings against the defaults and stores the new event.
    package func create(_ input: EventSettingsInput, by user: User) async throws -> Event {
        let now = clock.now
        var (settings, password) = try EventRules.apply(input, to: EventRules.newEvent(by: user.id, now: now), isNew: true, now: now)
        if case .some(.some(let password)) = password { settings.passwordHash = try await passwords.hash(password) }
        let final = settings
        return try await events.create { code in final.withCode(code) }
    }

    /// Applies an edit under the EV-2 rules and announces it.
    package func update(_ original: Event, with input: EventSettingsInput) async throws -> Event {
        let now = clock.now
        var (event, password) = try EventRules.apply(input, to: original, isNew: false, now: now)
        switch password {
        case .none: break
        case .some(.none): event.passwordHash = nil
        case .some(.some(let password)): event.passwordHash = try await passwords.hash(password)
        }
        let links = links
        try await events.update(event, now: now) { saved in
            ChangePayload(kind: .eventUpdated, event: EventJSON(saved, role: .organizer, now: now, links: links))
        }
        await changes.refresh(event.id)
        return try await events.find(id: event.id) ?? event
    }

    /// Ends a live or scheduled event now (an event that already ended keeps its end time).
    package func end(_ event: Event) async throws -> Event {
        try await events.end(id: event.id, now: clock.now)
        await changes.refresh(event.id)
        return try await events.find(id: event.id) ?? event
    }

    /// Deletes the event and everything in it, at the organizer's request.
    package func delete(_ event: Event) async throws {
        try await deletion.delete(eventID: event.id, reason: .organizer)
    }
}
