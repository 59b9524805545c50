import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Support tickets in the database (the `support_tickets` table's owner).
struct SupportRepository: Sendable {
    package let database: Database

    package func insert(_ ticket: TicketJSON, userID: String?, email: String?, message: String) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                INSERT INTO support_tickets (id, user_id, email, subject, message, status, created_at)
                VALUES (\(bind: ticket.id), \(bind: userID), \(bind: email), \(bind: ticket.subject), \(bind: message), 'open',
                    \(bind: ticket.createdAt.millisecondsSince1970))
                """
            ).run()
        }
    }

    /// Open ones first when `status` is nil, else only that status; the newest first.
    package func list(status: String?) async throws -> [TicketJSON] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM support_tickets WHERE \(bind: status ?? "") = '' OR status = \(bind: status ?? "")
                ORDER BY CASE WHEN status = 'open' THEN 0 ELSE 1 END, created_at DESC LIMIT 500
                """
            ).all().map(Self.ticket(from:))
        }
    }

    package func find(_ id: String) async throws -> TicketJSON? {
        try await database.read { db in
            try await db.raw("SELECT * FROM support_tickets WHERE id = \(bind: id)").first().map(Self.ticket(from:))
        }
    }

    package func setAnswer(_ id: String, _ answer: String, at now: Date) async throws {
        try await database.sql { db in
            try await db.raw(
                "UPDATE support_tickets SET answer = \(bind: answer), answered_at = \(bind: now.millisecondsSince1970) WHERE id = \(bind: id)"
            ).run()
        }
    }

    package func setStatus(_ id: String, _ status: String, closedAt: Date?) async throws {
        try await database.sql { db in
            try await db.raw(
                "UPDATE support_tickets SET status = \(bind: status), closed_at = \(bind: closedAt?.millisecondsSince1970) WHERE id = \(bind: id)"
            ).run()
        }
    }

    private static func ticket(from row: any SQLRow) throws -> TicketJSON {
        TicketJSON(
            id: try row.decode(column: "id", as: String.self), status: try row.decode(column: "status", as: String.self),
            subject: try row.decode(column: "subject", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            email: try row.decode(column: "email", as: String?.self), message: try row.decode(column: "message", as: String.self),
            answer: try row.decode(column: "answer", as: String?.self),
            answeredAt: try row.decode(column: "answered_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)))
    }

    /// An account's tickets (the account is being erased).
    package static func deleteTickets(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM support_tickets WHERE user_id = \(bind: userID)").run()
    }
}
