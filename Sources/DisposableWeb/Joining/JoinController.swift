import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Joining an event by its code as a guest, leaving it, and a personal link for another phone (JN-1..5).
package struct JoinController {
    package let joining: JoinService
    package let events: EventService

    package init(joining: JoinService, events: EventService) {
        self.joining = joining
        self.events = events
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/join", use: join)
        router.delete("/api/v1/events/:id/membership", use: leave)
        router.patch("/api/v1/events/:id/membership", use: rename)
        router.post("/api/v1/events/:id/membership/link", use: personalLink)
        router.delete("/api/v1/events/:id/membership/link", use: revokePersonalLink)
    }

    @Sendable package func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(JoinRequest.self)
        let joined = try await joining.join(
            code: body.code, key: body.key, name: body.name, password: body.password, termsVersion: body.acceptedTerms,
            identity: context.identity, client: context.clientAddress)
        return try jsonResponse(
            JoinResult(
                token: joined.token, guest: GuestJSON(joined.guest, shotsPerGuest: joined.event.shotsPerGuest),
                event: events.json(joined.event, role: .guest, for: nil)),
            status: .created)
    }

    @Sendable package func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        let eventID = try context.parameters.require("id")
        let (_, role) = try await events.event(eventID, for: context.identity)
        guard EventAccess(role).isGuest, let guest = try await joining.guest(of: context.identity, in: eventID) else {
            throw Problem(
                .conflict, "not-a-guest", title: "Not a guest",
                detail: "You organize this event; you cannot leave it. End or delete it instead.")
        }
        try await joining.leave(guest)
        return Response(status: .noContent)
    }

    /// A guest corrects their name; everything they posted shows the new one.
    @Sendable package func rename(_ request: Request, context: AppRequestContext) async throws -> Response {
        let eventID = try context.parameters.require("id")
        let (event, role) = try await events.event(eventID, for: context.identity)
        guard EventAccess(role).isGuest, let guest = try await joining.guest(of: context.identity, in: eventID) else {
            throw Problem(.conflict, "not-a-guest", title: "Not a guest", detail: "Only a guest of this event has a name in it to correct.")
        }
        let body = try await request.decodeJSON(MembershipPatch.self)
        let renamed = try await joining.rename(guest, to: body.name)
        return try jsonResponse(GuestJSON(renamed, shotsPerGuest: event.shotsPerGuest))
    }

    @Sendable package func personalLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, role) = try await events.event(try context.parameters.require("id"), for: context.identity)
        guard EventAccess(role).isGuest, case .guest(let guest, _) = context.identity else {
            throw Problem(
                .conflict, "not-a-guest", title: "Not a guest",
                detail: "Only a guest who joined without an account needs a personal link; with an account, sign in on the other phone.")
        }
        let link = try await joining.personalLink(for: guest)
        return try jsonResponse(PersonalLink(url: link.url, expiresAt: link.expiresAt), status: .created)
    }

    /// Stops the guest's personal link (a new one replaces it anyway); 204 whether or not there was one.
    @Sendable package func revokePersonalLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, role) = try await events.event(try context.parameters.require("id"), for: context.identity)
        guard EventAccess(role).isGuest, case .guest(let guest, _) = context.identity else {
            throw Problem(.conflict, "not-a-guest", title: "Not a guest", detail: "Only a guest who joined without an account has a personal link.")
        }
        try await joining.revokePersonalLink(of: guest)
        return Response(status: .noContent)
    }
}

extension JoinRequest: JSONBody {
    package static let fields: Set<String> = ["code", "key", "name", "password", "acceptedTerms"]
}

extension MembershipPatch: JSONBody {
    package static let fields: Set<String> = ["name"]
}
