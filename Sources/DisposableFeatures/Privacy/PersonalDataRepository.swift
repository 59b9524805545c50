import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The statements "My data" (SUP-4) needs across tables: what is stored about a person, for their export, and the rows
/// erased with their account. The rules — who may export or erase what, files before rows — are `MyDataService`'s.
struct PersonalDataRepository: Sendable {
    package let database: Database

    /// The guest rows an account joined events with.
    package func memberships(of userID: String) async throws -> [(id: String, eventID: String)] {
        try await database.read { db in
            try await db.raw("SELECT id, event_id FROM guests WHERE user_id = \(bind: userID)").all().map {
                (id: try $0.decode(column: "id", as: String.self), eventID: try $0.decode(column: "event_id", as: String.self))
            }
        }
    }

    package func organizedEventIDs(of userID: String) async throws -> [String] {
        try await database.read { db in
            try await db.raw("SELECT id FROM events WHERE organizer_id = \(bind: userID)").all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// The account's library (trash included), oldest first.
    package func libraryAssets(of userID: String) async throws -> [LibraryAsset] {
        try await database.read { db in
            try await db.raw("SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND deleted_at IS NULL ORDER BY taken_at, id")
                .all().map(LibraryAsset.from)
        }
    }

    /// The linked scrobbler, without its key.
    package func scrobbler(of userID: String) async throws -> ScrobblerJSON? {
        try await database.read { db in
            try await db.raw("SELECT kind, url, linked_at FROM scrobblers WHERE user_id = \(bind: userID)").first().map { row in
                ScrobblerJSON(
                    kind: try row.decode(column: "kind", as: String.self), url: try row.decode(column: "url", as: String.self),
                    linkedAt: Date(millisecondsSince1970: try row.decode(column: "linked_at", as: Int64.self)))
            }
        }
    }

    package func moments(of userID: String) async throws -> [MomentJSON] {
        try await database.read { db in
            try await db.raw("SELECT id, text, created_at FROM moments WHERE user_id = \(bind: userID) ORDER BY created_at, id").all()
                .map(MomentRepository.moment(from:))
        }
    }

    package func memberships(guestIDs: [String]) async throws -> [MyData.Membership] {
        guard !guestIDs.isEmpty else { return [] }
        return try await database.read { db in
            try await db.raw(
                """
                SELECT g.*, e.name AS event_name FROM guests g JOIN events e ON e.id = g.event_id
                WHERE g.id IN (\(binds: guestIDs)) ORDER BY g.joined_at
                """
            ).all().map { row in
                let guest = try GuestRepository.guest(from: row)
                return MyData.Membership(
                    guestId: guest.id, eventId: guest.eventID, eventName: try row.decode(column: "event_name", as: String.self), name: guest.name,
                    joinedAt: guest.joinedAt, leftAt: guest.leftAt, shotsUsed: guest.shotsUsed,
                    termsVersion: try row.decode(column: "terms_version", as: String?.self),
                    termsAcceptedAt: try row.decode(column: "terms_accepted_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)))
            }
        }
    }

    package func organized(by userID: String) async throws -> [MyData.Event] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT e.id, e.name, e.code, e.starts_at, e.ends_at, (SELECT COUNT(*) FROM photos p WHERE p.event_id = e.id) AS photo_count
                FROM events e WHERE e.organizer_id = \(bind: userID) ORDER BY e.starts_at
                """
            ).all().map { row in
                MyData.Event(
                    id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                    code: try row.decode(column: "code", as: String.self),
                    startsAt: Date(millisecondsSince1970: try row.decode(column: "starts_at", as: Int64.self)),
                    endsAt: Date(millisecondsSince1970: try row.decode(column: "ends_at", as: Int64.self)),
                    photoCount: try row.decode(column: "photo_count", as: Int.self))
            }
        }
    }

    package func coOrganized(by userID: String) async throws -> [MyData.CoOrganized] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT e.id, e.name, c.added_at FROM co_organizers c JOIN events e ON e.id = c.event_id
                WHERE c.user_id = \(bind: userID) ORDER BY c.added_at
                """
            ).all().map { row in
                MyData.CoOrganized(
                    eventId: try row.decode(column: "id", as: String.self), eventName: try row.decode(column: "name", as: String.self),
                    since: Date(millisecondsSince1970: try row.decode(column: "added_at", as: Int64.self)))
            }
        }
    }

    package func tickets(of userID: String) async throws -> [MyData.Ticket] {
        try await database.read { db in
            try await db.raw("SELECT id, subject, status, created_at FROM support_tickets WHERE user_id = \(bind: userID) ORDER BY created_at")
                .all().map { row in
                    MyData.Ticket(
                        id: try row.decode(column: "id", as: String.self), subject: try row.decode(column: "subject", as: String.self),
                        status: try row.decode(column: "status", as: String.self),
                        createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
                }
        }
    }

    /// The account's rows that do not go with its events and files: jobs, memberships, tickets, notices, then the
    /// account (friendships, capsules, moments and library rows go with it by cascade).
    package func eraseRows(of userID: String) async throws {
        try await database.transaction { db in
            try await JobRepository.cancelLibraryJobs(userID: userID, in: db)
            try await GuestRepository.deleteMemberships(userID: userID, in: db)
            try await SupportRepository.deleteTickets(userID: userID, in: db)
            try await NotificationRepository.erase(userID: userID, in: db)
            try await UserRepository.delete(userID: userID, in: db)
        }
    }
}
