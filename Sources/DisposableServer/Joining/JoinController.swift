import Foundation
import Hummingbird

/// Joining an event by its code as a guest, and leaving it (JN-1, JN-2, JN-3, JN-4).
struct JoinController {
    let services: AppServices
    let access: EventAccess
    /// Wrong codes and wrong passwords per client address; correct joins cost nothing, so a whole
    /// wedding behind one venue Wi-Fi address can join at once.
    let guessLimiter: RateLimiter

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
        guessLimiter = RateLimiter(services.configuration.limits.join)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/join", use: join)
        router.delete("/api/v1/events/:id/membership", use: leave)
    }

    struct JoinBody: JSONBody {
        static let fields: Set<String> = ["code", "name", "password", "acceptedTerms"]
        let code: String?
        let name: String?
        let password: String?
        /// The version of the terms the guest accepted (SUP-3), stored with the time.
        let acceptedTerms: String?
    }

    struct JoinJSON: Encodable {
        let token: String
        let guest: GuestJSON
        let event: EventJSON
    }

    @Sendable func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(JoinBody.self)
        let joined = try await join(code: body.code, name: body.name, password: body.password, termsVersion: body.acceptedTerms,
                                    identity: context.identity, client: context.clientAddress)
        return try jsonResponse(
            JoinJSON(token: joined.token, guest: GuestJSON(joined.guest, shotsPerGuest: joined.event.shotsPerGuest),
                     event: EventJSON(joined.event, role: .guest, services: services)),
            status: .created)
    }

    struct Joined: Sendable {
        let token: String
        let guest: Guest
        let event: Event
    }

    /// Checks the code, name and password, takes a place and returns the new guest's token; shared with the web form.
    func join(code rawCode: String?, name rawName: String?, password: String?, termsVersion: String?, identity: Identity?,
              client: String) async throws -> Joined {
        try await guessLimiter.check(client)
        let name = try DisplayName.validate(rawName)
        if let termsVersion, termsVersion.isEmpty || termsVersion.count > 40 {
            throw Problem.invalidField("acceptedTerms", "acceptedTerms must be the version of the terms the guest accepted.")
        }
        let now = services.clock.now
        guard let code = rawCode.flatMap(EventCode.init(typed:)),
            let event = try await services.events.find(code: code),
            now < event.deletesAt(retention: services.configuration.retention)
        else {
            await guessLimiter.consume(client)
            throw Problem(.notFound, "unknown-code", title: "Unknown code",
                          detail: "No event has this code. Check the code on the card or ask the organizer.")
        }
        if let hash = event.passwordHash {
            guard let password, !password.isEmpty else {
                throw Problem(.forbidden, "event-password-required", title: "Password needed",
                              detail: "This event is protected by a password. Ask the organizer for it.")
            }
            guard try await services.passwords.verify(password, hash: hash) else {
                await guessLimiter.consume(client)
                throw Problem(.forbidden, "wrong-event-password", title: "Wrong password",
                              detail: "That is not the event's password. Check it with the organizer and try again.")
            }
        }
        var userID: String? = nil
        if case .user(let user, _) = identity { userID = user.id }
        let guest = Guest(id: newID(), eventID: event.id, userID: userID, name: name, joinedAt: now, leftAt: nil, shotsUsed: 0)
        let token = try await services.database.transaction { db -> String? in
            guard try await EventRepository.claimGuestPlace(eventID: event.id, in: db) else { return nil }
            try await services.guests.insert(guest, in: db)
            if let termsVersion { try await GuestRepository.recordTerms(guestID: guest.id, version: termsVersion, at: now, in: db) }
            return try await services.tokens.issue(guestID: guest.id, now: now, in: db)
        }
        guard let token else {
            throw Problem(.conflict, "event-full", title: "Event full",
                          detail: "This event is full: it already has the \(event.maxGuests ?? 0) guests the organizer allowed.")
        }
        return Joined(token: token, guest: guest, event: try await services.events.find(id: event.id) ?? event)
    }

    @Sendable func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        let eventID = try context.parameters.require("id")
        let (_, role) = try await access.event(eventID, for: context.identity)
        let guest: Guest?
        switch context.identity {
        case .guest(let g, _): guest = g
        case .user(let user, _): guest = try await services.guests.activeMembership(userID: user.id, eventID: eventID)
        case nil: guest = nil
        }
        guard role == .guest, let guest else {
            throw Problem(.conflict, "not-a-guest", title: "Not a guest",
                          detail: "You organize this event; you cannot leave it. End or delete it instead.")
        }
        try await services.guests.leave(guest, now: services.clock.now)
        return Response(status: .noContent)
    }
}
