import DisposableAPI
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// Support tickets (SUP-2): anyone writes; the admin reads, answers and closes.
package struct SupportController {
    package let support: SupportService

    package init(support: SupportService) {
        self.support = support
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("/api/v1/support/tickets", use: open)
        router.get("/api/v1/admin/tickets", use: list)
        router.patch("/api/v1/admin/tickets/:id", use: update)
    }

    @Sendable package func open(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(NewTicketRequest.self)
        let ticket = try await support.open(body, from: context.identity, client: context.clientAddress)
        return try jsonResponse(ticket, status: .created)
    }

    @Sendable package func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        return try jsonResponse(TicketList(items: try await support.tickets(status: request.uri.queryParameters.get("status"))))
    }

    @Sendable package func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireAdmin()
        let patch = try await request.decodeJSON(TicketPatch.self)
        return try jsonResponse(try await support.update(try context.parameters.require("id"), with: patch))
    }
}

extension NewTicketRequest: JSONBody {
    package static let fields: Set<String> = ["email", "subject", "message"]
}

extension TicketPatch: JSONBody {
    package static let fields: Set<String> = ["status", "answer"]
}
