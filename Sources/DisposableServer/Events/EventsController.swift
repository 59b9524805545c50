import Foundation
import Hummingbird

/// Create, read, edit, list, end and delete events (EV-1..4), and their QR codes (QR-1).
struct EventsController {
    let services: AppServices
    let access: EventAccess

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events", use: create)
        router.get("/api/v1/events", use: list)
        router.get("/api/v1/events/:id", use: get)
        router.patch("/api/v1/events/:id", use: update)
        router.delete("/api/v1/events/:id", use: delete)
        router.post("/api/v1/events/:id/end", use: end)
        router.get("/api/v1/events/:id/qr.png", use: qrPNG)
        router.get("/api/v1/events/:id/qr.svg", use: qrSVG)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let event = try await create(try await request.decodeJSON(EventSettingsInput.self), by: user)
        var response = try jsonResponse(EventJSON(event, role: .organizer, services: services), status: .created)
        response.headers[.location] = "/api/v1/events/\(event.id)"
        return response
    }

    /// Validates the settings against the defaults and stores the new event; shared with the web form.
    func create(_ input: EventSettingsInput, by user: User) async throws -> Event {
        let now = services.clock.now
        let defaults = Event(
            id: newID(), organizerID: user.id, code: EventCode.random(), name: "", description: "",
            startsAt: now, endsAt: now + TimeInterval(EventRules.defaultDurationHours) * 3600,
            shotsPerGuest: EventRules.defaultShotsPerGuest, revealMode: .now, revealAt: nil,
            allowLibraryUploads: true, allowGuestDownloads: true, passwordHash: nil, maxGuests: nil,
            guestCount: 0, firstPhotoAt: nil, createdAt: now)
        var (settings, password) = try EventRules.apply(input, to: defaults, isNew: true, now: now)
        if case .some(.some(let password)) = password { settings.passwordHash = try await services.passwords.hash(password) }
        let final = settings
        return try await services.events.create { code in
            Event(
                id: final.id, organizerID: final.organizerID, code: code, name: final.name, description: final.description,
                startsAt: final.startsAt, endsAt: final.endsAt, shotsPerGuest: final.shotsPerGuest,
                revealMode: final.revealMode, revealAt: final.revealAt, allowLibraryUploads: final.allowLibraryUploads,
                allowGuestDownloads: final.allowGuestDownloads, passwordHash: final.passwordHash,
                maxGuests: final.maxGuests, requireApproval: final.requireApproval, guestCount: 0, firstPhotoAt: nil, createdAt: now)
        }
    }

    struct EventListJSON: Encodable {
        let items: [EventJSON]
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let events: [(Event, EventRole)]
        switch try context.requireIdentity() {
        case .user(let user, _):
            events = try await services.events.list(forUser: user.id).map { ($0, $0.organizerID == user.id ? .organizer : .guest) }
        case .guest(let guest, _):
            events = try await services.events.find(id: guest.eventID).map { [($0, .guest)] } ?? []
        }
        let now = services.clock.now
        let visible = events.filter { now < $0.0.deletesAt(retention: services.configuration.retention) }
        return try jsonResponse(EventListJSON(items: visible.map { EventJSON($0.0, role: $0.1, services: services) }))
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (event, role) = try await access.event(try context.parameters.require("id"), for: context.identity)
        return try jsonResponse(EventJSON(event, role: role, services: services))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let original = try await access.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let saved = try await update(original, with: try await request.decodeJSON(EventSettingsInput.self))
        return try jsonResponse(EventJSON(saved, role: .organizer, services: services))
    }

    /// Applies an edit under the EV-2 rules and announces it; shared with the web form.
    func update(_ original: Event, with input: EventSettingsInput) async throws -> Event {
        let now = services.clock.now
        var (event, password) = try EventRules.apply(input, to: original, isNew: false, now: now)
        switch password {
        case .none: break
        case .some(.none): event.passwordHash = nil
        case .some(.some(let password)): event.passwordHash = try await services.passwords.hash(password)
        }
        let services = services
        try await services.events.update(event, now: now) { saved in
            EventChange(kind: .eventUpdated, event: EventJSON(saved, role: .organizer, services: services))
        }
        await services.changes.refresh(event.id)
        return try await services.events.find(id: event.id) ?? event
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await access.organizedEvent(try context.parameters.require("id"), for: context.identity)
        try await EventDeletion(services: services).delete(eventID: event.id, reason: .organizer)
        return Response(status: .noContent)
    }

    @Sendable func end(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await access.organizedEvent(try context.parameters.require("id"), for: context.identity)
        return try jsonResponse(EventJSON(try await end(event), role: .organizer, services: services))
    }

    func end(_ event: Event) async throws -> Event {
        try await services.events.end(id: event.id, now: services.clock.now)
        await services.changes.refresh(event.id)
        return try await services.events.find(id: event.id) ?? event
    }

    @Sendable func qrPNG(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await access.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let size = try qrSize(request)
        let code = try QRCode(joinURLString(for: event.code, baseURL: services.configuration.publicBaseURL))
        return qrResponse(code.png(size: size), contentType: "image/png", event: event, ext: "png")
    }

    @Sendable func qrSVG(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await access.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let size = try qrSize(request)
        let code = try QRCode(joinURLString(for: event.code, baseURL: services.configuration.publicBaseURL))
        return qrResponse(Data(code.svg(size: size).utf8), contentType: "image/svg+xml", event: event, ext: "svg")
    }

    private func qrSize(_ request: Request) throws -> Int {
        guard let raw = request.uri.queryParameters.get("size") else { return QRCode.defaultSize }
        guard let size = Int(raw), QRCode.sizes.contains(size) else {
            throw Problem.invalidField(
                "size", "The QR code size must be a whole number of pixels between \(QRCode.sizes.lowerBound) and \(QRCode.sizes.upperBound).")
        }
        return size
    }

    private func qrResponse(_ data: Data, contentType: String, event: Event, ext: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: contentType,
                .contentDisposition: "inline; filename=\"event-\(event.code)-qr.\(ext)\"",
                .cacheControl: "private, max-age=3600",
            ],
            body: .init(byteBuffer: .init(data: data)))
    }
}
