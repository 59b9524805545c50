import Foundation
import Hummingbird
import SQLKit

/// "Continue on another phone" (JN-5): a one-time link that signs a second device in as the same guest,
/// with the same name and the same shots left. Valid for a day, used once, stored as a hash.
struct PersonalLinks: Sendable {
    static let lifetime: TimeInterval = 24 * 3600
    let services: AppServices

    struct Link: Encodable, Sendable {
        let url: String
        let expiresAt: Date
    }

    func create(for guest: Guest, code: EventCode) async throws -> Link {
        let token = AccessTokenRepository.generate()
        let now = services.clock.now
        let expires = now + Self.lifetime
        try await services.database.sql { db in
            try await db.raw(
                """
                INSERT INTO guest_links (token_hash, guest_id, created_at, expires_at)
                VALUES (\(bind: AccessTokenRepository.hash(token)), \(bind: guest.id), \(bind: now.millisecondsSince1970),
                        \(bind: expires.millisecondsSince1970))
                """
            ).run()
        }
        return Link(url: "\(services.configuration.publicBaseURL)/c/\(token)", expiresAt: expires)
    }

    /// Uses the link up: a new session token for its guest, or nil when it is unknown, used or expired.
    func redeem(_ token: String) async throws -> (token: String, guest: Guest)? {
        let now = services.clock.now
        return try await services.database.transaction { db in
            guard
                let row = try await db.raw(
                    "DELETE FROM guest_links WHERE token_hash = \(bind: AccessTokenRepository.hash(token)) RETURNING guest_id, expires_at"
                ).first(),
                try row.decode(column: "expires_at", as: Int64.self) > now.millisecondsSince1970,
                let guest = try await GuestRepository.find(id: try row.decode(column: "guest_id", as: String.self), in: db),
                guest.leftAt == nil
            else { return nil }
            return (try await services.tokens.issue(guestID: guest.id, now: now, in: db), guest)
        }
    }
}

/// `POST /api/v1/events/{id}/membership/link` for the guest asking.
struct PersonalLinkController {
    let services: AppServices
    let access: EventAccess

    init(services: AppServices) {
        self.services = services
        access = EventAccess(services: services)
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/events/:id/membership/link", use: create)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (event, role) = try await access.event(try context.parameters.require("id"), for: context.identity)
        guard role == .guest, case .guest(let guest, _) = context.identity else {
            throw Problem(.conflict, "not-a-guest", title: "Not a guest",
                          detail: "Only a guest who joined without an account needs a personal link; with an account, sign in on the other phone.")
        }
        return try jsonResponse(try await PersonalLinks(services: services).create(for: guest, code: event.code), status: .created)
    }
}
