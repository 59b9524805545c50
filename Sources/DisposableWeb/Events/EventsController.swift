import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Create, read, edit, list, end and delete events (EV-1..4), and their QR codes (QR-1).
package struct EventsController {
    package let events: EventService

    package init(events: EventService) {
        self.events = events
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events", use: create)
        router.get("/api/v1/events", use: list)
        router.get("/api/v1/events/:id", use: get)
        router.patch("/api/v1/events/:id", use: update)
        router.delete("/api/v1/events/:id", use: delete)
        router.post("/api/v1/events/:id/end", use: end)
        router.get("/api/v1/events/:id/qr.png", use: qrPNG)
        router.get("/api/v1/events/:id/qr.svg", use: qrSVG)
    }

    @Sendable package func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let event = try await events.create(try await request.decodeJSON(EventSettingsInput.self), by: user)
        var response = try jsonResponse(events.json(event, role: .organizer, for: context.identity), status: .created)
        response.headers[.location] = "/api/v1/events/\(event.id)"
        return response
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let listed = try await events.list(for: try context.requireIdentity())
        return try jsonResponse(EventList(items: listed.map { events.json($0.0, role: $0.1, for: context.identity) }))
    }

    @Sendable package func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (event, role) = try await events.event(try context.parameters.require("id"), for: context.identity)
        return try jsonResponse(events.json(event, role: role, for: context.identity))
    }

    @Sendable package func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        let original = try await events.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let saved = try await events.update(original, with: try await request.decodeJSON(EventSettingsInput.self))
        return try jsonResponse(events.json(saved, role: .organizer, for: context.identity))
    }

    @Sendable package func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await events.delete(try await events.ownedEvent(try context.parameters.require("id"), for: context.identity))
        return Response(status: .noContent)
    }

    @Sendable package func end(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await events.organizedEvent(try context.parameters.require("id"), for: context.identity)
        return try jsonResponse(events.json(try await events.end(event), role: .organizer, for: context.identity))
    }

    @Sendable package func qrPNG(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await events.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let size = try qrSize(request)
        let code = try QRCode(events.links.join(event))
        return qrResponse(code.png(size: size), contentType: "image/png", event: event, ext: "png")
    }

    @Sendable package func qrSVG(_ request: Request, context: AppRequestContext) async throws -> Response {
        let event = try await events.organizedEvent(try context.parameters.require("id"), for: context.identity)
        let size = try qrSize(request)
        let code = try QRCode(events.links.join(event))
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
