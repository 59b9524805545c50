import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `client_errors` table: the last browser errors, at most `keep` of them.
struct ClientErrorRepository: Sendable {
    package let database: Database

    package func insert(_ error: ClientErrorJSON, keep: Int) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                INSERT INTO client_errors (id, at, page, message, stack, browser)
                VALUES (\(bind: error.id), \(bind: error.at.millisecondsSince1970), \(bind: error.page), \(bind: error.message),
                    \(bind: error.stack), \(bind: error.browser))
                """
            ).run()
            try await db.raw(
                """
                DELETE FROM client_errors WHERE id NOT IN (SELECT id FROM client_errors ORDER BY at DESC, id DESC LIMIT \(bind: keep))
                """
            ).run()
        }
    }

    /// The newest first.
    package func recent(limit: Int) async throws -> [ClientErrorJSON] {
        try await database.read { db in
            try await db.raw("SELECT * FROM client_errors ORDER BY at DESC, id DESC LIMIT \(bind: limit)").all().map { row in
                let column = ColumnReader(row)
                return ClientErrorJSON(
                    id: try column("id", as: String.self), at: Date(millisecondsSince1970: try column("at", as: Int64.self)),
                    page: try column("page", as: String.self), message: try column("message", as: String.self),
                    stack: try column.optional("stack", as: String.self), browser: try column.optional("browser", as: String.self))
            }
        }
    }
}
