import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// The `moments` table (`MomentService` holds the rules); the year's recap notice is marked on the person, with the
/// notice, in one transaction.
struct MomentRepository: Sendable {
    package let database: Database

    /// Inserts the moment unless its owner has `limit` already; false then, and how many they have.
    package func insert(_ moment: MomentJSON, userID: String, limit: Int) async throws -> (inserted: Bool, count: Int) {
        try await database.transaction { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM moments WHERE user_id = \(bind: userID)").first()!.decode(
                column: "n", as: Int.self)
            guard count < limit else { return (false, count) }
            try await db.raw(
                """
                INSERT INTO moments (id, user_id, text, created_at)
                VALUES (\(bind: moment.id), \(bind: userID), \(bind: moment.text), \(bind: moment.createdAt.millisecondsSince1970))
                """
            ).run()
            return (true, count + 1)
        }
    }

    /// False when the owner has no such moment.
    package func delete(_ id: String, userID: String) async throws -> Bool {
        try await database.sql { db in
            try await db.raw("DELETE FROM moments WHERE id = \(bind: id) AND user_id = \(bind: userID) RETURNING id").first() != nil
        }
    }

    /// The owner's moments written in `from..<to`, oldest first.
    package func between(_ from: Date, _ to: Date, userID: String) async throws -> [MomentJSON] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT id, text, created_at FROM moments
                WHERE user_id = \(bind: userID) AND created_at >= \(bind: from.millisecondsSince1970) AND created_at < \(bind: to.millisecondsSince1970)
                ORDER BY created_at, id
                """
            ).all().map(Self.moment(from:))
        }
    }

    /// The quarter hours (since 1970, UTC) in which the owner wrote moments, each once.
    package func quarterHours(userID: String) async throws -> [Int64] {
        try await database.read { db in
            try await db.raw("SELECT DISTINCT created_at / 900000 AS quarter FROM moments WHERE user_id = \(bind: userID)").all()
                .map { try $0.decode(column: "quarter", as: Int64.self) }
        }
    }

    /// Accounts with moments not told of their recap up to `latest`: id, time zone, the last year they were told of.
    package func accountsToTell(upTo latest: Int) async throws -> [(id: String, zone: String?, told: Int?)] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT users.id, users.time_zone, r.year AS moments_recap_year
                FROM users LEFT JOIN moments_recaps r ON r.user_id = users.id
                WHERE (r.year IS NULL OR r.year < \(bind: latest))
                  AND EXISTS (SELECT 1 FROM moments WHERE moments.user_id = users.id)
                """
            ).all().map {
                (
                    id: try $0.decode(column: "id", as: String.self), zone: try $0.decode(column: "time_zone", as: String?.self),
                    told: try $0.decode(column: "moments_recap_year", as: Int?.self)
                )
            }
        }
    }

    /// Marks `year`'s recap told and, if the year has moments (`from..<to`), writes the notice — in one transaction,
    /// only for the one caller that marked it. True when a notice was written.
    package func tellRecap(year: Int, from: Date, to: Date, userID: String, now: Date) async throws -> Bool {
        try await database.transaction { db in
            guard
                try await Self.markRecapTold(year: year, userID: userID, in: db),
                try await db.raw(
                    """
                    SELECT 1 AS one FROM moments WHERE user_id = \(bind: userID)
                      AND created_at >= \(bind: from.millisecondsSince1970) AND created_at < \(bind: to.millisecondsSince1970) LIMIT 1
                    """
                ).first() != nil
            else { return false }
            try await NotificationRepository.toAccount(.momentsRecap, userID: userID, period: String(year), now: now, in: db)
            return true
        }
    }

    /// A `moments` row as the API shows it (also read by the data export).
    package static func moment(from row: any SQLRow) throws -> MomentJSON {
        MomentJSON(
            id: try row.decode(column: "id", as: String.self), text: try row.decode(column: "text", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
    }
}

extension MomentRepository {
    /// Marks `year`'s recap told to the account unless it already was (here or by another instance); whether this call did.
    package static func markRecapTold(year: Int, userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            INSERT INTO moments_recaps (user_id, year) SELECT id, \(bind: year) FROM users WHERE id = \(bind: userID)
            ON CONFLICT (user_id) DO UPDATE SET year = excluded.year WHERE moments_recaps.year < excluded.year
            RETURNING user_id
            """
        ).first() != nil
    }
}
