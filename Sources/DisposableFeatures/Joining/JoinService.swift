import DisposableCore
import DisposablePlatform
import Foundation

/// Joining an event as a guest, leaving it, and carrying on from another phone (JN-1..5). Owns the guess
/// limiter that the API and the join form share.
package struct JoinService: Sendable {
    package let transactions: Transactions
    let events: EventRepository
    let guests: GuestRepository
    let tokens: AccessTokenRepository
    package let passwords: PasswordHasher
    package let clock: any AppClock
    package let links: InstanceLinks
    /// Unknown codes per address; wrong event passwords per address and event, and per event. Correct joins
    /// cost nothing, and joins with the QR code's key never meet it, so a whole wedding behind one venue
    /// Wi-Fi address joins at once even while someone there guesses codes.
    package let guessLimiter: RateLimiter
    /// Renames per guest: five at once, then one every ten minutes.
    package let renameLimiter = RateLimiter([.target: RateLimit(burst: 5, refillEvery: .seconds(600))])

    init(
        transactions: Transactions, events: EventRepository, guests: GuestRepository, tokens: AccessTokenRepository, passwords: PasswordHasher,
        clock: any AppClock, links: InstanceLinks, guessLimiter: RateLimiter
    ) {
        self.transactions = transactions
        self.events = events
        self.guests = guests
        self.tokens = tokens
        self.passwords = passwords
        self.clock = clock
        self.links = links
        self.guessLimiter = guessLimiter
    }

    package static func guessLimiter(perAddress: RateLimit, perEvent: RateLimit) -> RateLimiter {
        RateLimiter([.address: perAddress, .pair: perAddress, .target: perEvent])
    }

    package struct Joined: Sendable {
        package let token: String
        package let guest: Guest
        package let event: Event

        package init(token: String, guest: Guest, event: Event) {
            self.token = token
            self.guest = guest
            self.event = event
        }
    }

    /// The event a code names, for someone who is not (yet) in it. Every lookup that reveals whether a code
    /// exists comes here: with the event's key it is free; otherwise it takes a token from the address before
    /// looking, and gives it back when the code exists, so only unknown codes count and a throttled address
    /// learns nothing more.
    package func lookUp(code rawCode: String?, key: String?, client: String) async throws -> Event? {
        var found: Event? = nil
        if let code = rawCode.flatMap(EventCode.init(typed:)) { found = try await events.find(code: code) }
        return try await admit(found, key: key, client: client)
    }

    /// `lookUp` for an event already read (or not found) by the caller, who is a stranger to it.
    package func admit(_ event: Event?, key: String?, client: String) async throws -> Event? {
        let found = event.flatMap { clock.now < $0.deletesAt(retention: links.retention) ? $0 : nil }
        if let found, found.opens(withKey: key) { return found }
        let ticket = try await guessLimiter.take([.address(client)])
        guard let found else { return nil }
        await guessLimiter.giveBack(ticket)
        return found
    }

    /// Checks the code (or its key), name and password, takes a place and returns the new guest's token.
    package func join(
        code rawCode: String?, key: String? = nil, name rawName: String?, password: String?, termsVersion: String?,
        identity: Identity?, client: String
    ) async throws -> Joined {
        let name = try DisplayName.validate(rawName)
        if let termsVersion, termsVersion.isEmpty || termsVersion.count > 40 {
            throw Problem.invalidField("acceptedTerms", "acceptedTerms must be the version of the terms the guest accepted.")
        }
        let now = clock.now
        guard let event = try await lookUp(code: rawCode, key: key, client: client) else {
            throw Problem(
                .notFound, "unknown-code", title: "Unknown code",
                detail: "No event has this code. Check the code on the card or ask the organizer.")
        }
        // An account joins an event once: again, it is the same guest (back in if it had left), with the shots it
        // had left — a new guest would be a new roll.
        if case .user(let user, _) = identity, let own = try await guests.latestMembership(userID: user.id, eventID: event.id) {
            guard let back = try await guests.comeBack(own) else { throw Self.full(event) }
            let tokens = tokens
            let token = try await transactions.transaction { db in try await tokens.issue(guestID: back.id, now: now, in: db) }
            return Joined(token: token, guest: back, event: event)
        }
        if let hash = event.passwordHash {
            guard let password, !password.isEmpty else {
                throw Problem(
                    .forbidden, "event-password-required", title: "Password needed",
                    detail: "This event is protected by a password. Ask the organizer for it.")
            }
            let ticket = try await guessLimiter.take([.pair(client, event.id), .target(event.id)])
            guard try await passwords.verify(password, hash: hash) else {
                throw Problem(
                    .forbidden, "wrong-event-password", title: "Wrong password",
                    detail: "That is not the event's password. Check it with the organizer and try again.")
            }
            await guessLimiter.giveBack(ticket)
        }
        var userID: String? = nil
        if case .user(let user, _) = identity { userID = user.id }
        let (guests, tokens, accountID) = (guests, tokens, userID)
        let joined = try await transactions.transaction { db -> (String, Guest)? in
            guard try await EventRepository.claimGuestPlace(eventID: event.id, in: db) else { return nil }
            let shown = try await GuestRepository.distinctName(name, eventID: event.id, in: db)
            let guest = Guest(id: newID(), eventID: event.id, userID: accountID, name: shown, joinedAt: now, leftAt: nil, shotsUsed: 0)
            try await guests.insert(guest, in: db)
            if let termsVersion { try await GuestRepository.recordTerms(guestID: guest.id, version: termsVersion, at: now, in: db) }
            return (try await tokens.issue(guestID: guest.id, now: now, in: db), guest)
        }
        guard let (token, guest) = joined else { throw Self.full(event) }
        return Joined(token: token, guest: guest, event: try await events.find(id: event.id) ?? event)
    }

    /// The guest an identity is in this event, if it joined it as one.
    package func guest(of identity: Identity?, in eventID: String) async throws -> Guest? {
        switch identity {
        case .guest(let guest, _): guest.eventID == eventID ? guest : nil
        case .user(let user, _): try await guests.activeMembership(userID: user.id, eventID: eventID)
        case nil: nil
        }
    }

    /// Leaves the event on every phone: marks the guest as gone, revokes their tokens and frees their place; their
    /// photos stay (JN-3). `keepingTokenHash` is the leaving browser's own token, kept so that it can come back.
    package func leave(_ guest: Guest, keepingTokenHash: String? = nil) async throws {
        try await guests.leave(guest, now: clock.now, keepingTokenHash: keepingTokenHash)
    }

    /// A guest corrects the name they joined under (GDPR rectification): shown at once on their
    /// photos, notes and comments, in every open gallery.
    package func rename(_ guest: Guest, to rawName: String?) async throws -> Guest {
        let name = try DisplayName.validate(rawName)
        guard name != guest.name else { return guest }
        // Each rename rewrites every post of theirs in every open gallery: a few in a row fix a typo, a loop floods.
        try await renameLimiter.take([.target(guest.id)])
        return try await guests.rename(guest, to: name, now: clock.now)
    }

    /// A browser joining an event it left (on this phone or on every phone) under the same name comes back as the
    /// same guest, with the shots they had left: the shot limit holds across leaving. `setAside`
    /// are the tokens the browser kept when it left. Nil when none of them is this event's guest by that name.
    package func comeBack(to event: Event, name rawName: String?, setAside: [String]) async throws -> Joined? {
        guard let name = try? DisplayName.validate(rawName) else { return nil }
        for token in setAside {
            guard let id = try await tokens.heldGuestID(token: token), let guest = try await guests.find(id: id),
                guest.eventID == event.id, Self.sameName(guest.name, typed: name)
            else { continue }
            guard let back = try await guests.comeBack(guest) else { throw Self.full(event) }
            return Joined(token: token, guest: back, event: try await events.find(id: event.id) ?? event)
        }
        return nil
    }

    package static func full(_ event: Event) -> Problem {
        Problem(
            .conflict, "event-full", title: "Event full",
            detail: "This event is full: it already has the \(event.maxGuests ?? 0) guests the organizer allowed.")
    }

    /// "Maggie" typed again finds "Maggie" and the "Maggie 2" the event made of a second Maggie.
    package static func sameName(_ shown: String, typed: String) -> Bool {
        let (shown, typed) = (shown.lowercased(), typed.lowercased())
        guard shown != typed else { return true }
        guard shown.hasPrefix(typed + " ") else { return false }
        return shown.dropFirst(typed.count + 1).allSatisfy(\.isNumber)
    }

    /// The event a guest is in (a page listing a browser's memberships names them).
    package func event(of guest: Guest) async throws -> Event? {
        try await events.find(id: guest.eventID)
    }

    /// Who holds each token of this browser's list, among those still valid.
    package func memberships(_ held: [String]) async throws -> [(token: String, guest: Guest)] {
        var found: [(String, Guest)] = []
        for token in held {
            if case .guest(let guest, _) = try await tokens.identity(for: token) { found.append((token, guest)) }
        }
        return found
    }

    // MARK: Personal links (JN-5)

    /// "Continue on another phone": a one-time link that signs a second device in as the same guest, with the
    /// same name and the same shots left. Valid for a day, used once, stored as a hash.
    package static let personalLinkLifetime: TimeInterval = 24 * 3600

    package func personalLink(for guest: Guest) async throws -> (url: String, expiresAt: Date) {
        let token = SecretToken.generate()
        let now = clock.now
        let expires = now + Self.personalLinkLifetime
        try await guests.storeLink(tokenHash: SecretToken.hash(token), guestID: guest.id, now: now, expires: expires)
        return ("\(links.publicBaseURL)/c/\(token)", expires)
    }

    /// Stops the guest's personal link before anyone uses it; returns whether there was one.
    @discardableResult
    package func revokePersonalLink(of guest: Guest) async throws -> Bool {
        try await guests.revokeLinks(guestID: guest.id)
    }

    /// Who a link would sign in as, without using it up (the second phone confirms first).
    package func guest(ofPersonalLink token: String) async throws -> Guest? {
        try await guests.linkGuest(tokenHash: SecretToken.hash(token), now: clock.now)
    }

    /// Uses the link up: a new session token for its guest, or nil when it is unknown, used or expired.
    package func redeem(personalLink token: String) async throws -> (token: String, guest: Guest)? {
        let now = clock.now
        let tokens = tokens
        return try await transactions.transaction { db in
            guard let guest = try await GuestRepository.takeLink(tokenHash: SecretToken.hash(token), now: now, in: db) else {
                return nil
            }
            return (try await tokens.issue(guestID: guest.id, now: now, in: db), guest)
        }
    }
}
