import DisposableCore
import Foundation
import SQLKit

/// The `jobs` table: due work leased by one worker at a time (`JobQueue` says what runs when and for how long).
package struct JobRepository: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// `owner`: whose work it is (the uploader), for taking turns.
    package static func enqueue(
        _ kind: JobQueue.Kind, subjectID: String, owner: String, priority: JobQueue.Priority, now: Date, in db: any SQLDatabase
    ) async throws {
        try await db.raw(
            """
            INSERT INTO jobs (id, kind, subject_id, owner, priority, turn, attempts, run_after, created_at)
            VALUES (\(bind: newID()), \(bind: kind.rawValue), \(bind: subjectID), \(bind: owner), \(bind: priority.rawValue),
                (SELECT COUNT(*) FROM jobs WHERE owner = \(bind: owner) AND priority = \(bind: priority.rawValue)), 0,
                \(bind: now.millisecondsSince1970), \(bind: now.millisecondsSince1970))
            """
        ).run()
    }

    /// Leases a due job, if any: the most urgent kind of work first (`JobQueue.Priority`), and within it taking turns between
    /// owners: first the jobs that had the fewest of their owner's jobs of that priority before them when queued
    /// (`turn`), then the oldest. Read in the order of an index: a claim takes the write lock, and counting each
    /// job's predecessors here instead cost 140 ms a claim with 1,800 jobs queued — on event night, the uploads'
    /// and renders' own transactions waited behind it. A guest who sends 50 photos at once
    /// does not hold up the next guest's one. The guard in the UPDATE makes two workers
    /// (or two instances) racing for the same job end with one winner.
    /// `leaseEnd`: when others may take it; `upTo`: the least urgent priority taken.
    package func claim(now: Date, leaseEnd: Date, upTo least: JobQueue.Priority) async throws -> JobQueue.Job? {
        let nowMS = now.millisecondsSince1970
        let leaseEnd = leaseEnd.millisecondsSince1970
        return try await database.sql { db in
            guard
                let row = try await db.raw(
                    """
                    UPDATE jobs SET leased_until = \(bind: leaseEnd), attempts = attempts + 1
                    WHERE id = (SELECT j.id FROM jobs j
                                WHERE j.run_after <= \(bind: nowMS) AND (j.leased_until IS NULL OR j.leased_until < \(bind: nowMS))
                                  AND j.priority <= \(bind: least.rawValue)
                                ORDER BY j.priority, j.turn, j.run_after, j.id
                                LIMIT 1)
                      AND (leased_until IS NULL OR leased_until < \(bind: nowMS))
                    RETURNING id, kind, subject_id, attempts
                    """
                ).first()
            else { return nil }
            return JobQueue.Job(
                id: try row.decode(column: "id", as: String.self), kind: .init(rawValue: try row.decode(column: "kind", as: String.self)),
                subjectID: try row.decode(column: "subject_id", as: String.self),
                attempts: try row.decode(column: "attempts", as: Int.self))
        }
    }

    package static func complete(_ jobID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM jobs WHERE id = \(bind: jobID)").run()
    }

    package func complete(_ jobID: String) async throws {
        try await database.sql { try await Self.complete(jobID, in: $0) }
    }

    /// Gives a job back to run at `runAfter`, with `attempts` counted.
    package func retry(_ jobID: String, runAfter: Date, attempts: Int) async throws {
        try await database.sql { db in
            try await db.raw(
                """
                UPDATE jobs SET leased_until = NULL, run_after = \(bind: runAfter.millisecondsSince1970), attempts = \(bind: attempts)
                WHERE id = \(bind: jobID)
                """
            ).run()
        }
    }

    /// At start-up of the only instance (SQLite), every lease belongs to a process that is gone.
    package func releaseAllLeases() async throws {
        try await database.sql { db in try await db.raw("UPDATE jobs SET leased_until = NULL").run() }
    }

    /// Drops the renders queued for an account's library assets (the account is being erased).
    package static func cancelLibraryJobs(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM jobs WHERE subject_id IN (SELECT id FROM library_assets WHERE user_id = \(bind: userID))").run()
    }

    /// Drops what is queued for one photo or asset, in the caller's transaction (it is deleted or replaced).
    package static func cancel(subjectID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM jobs WHERE subject_id = \(bind: subjectID)").run()
    }

    /// Drops what is queued for an event's photos, in the transaction that deletes the event.
    package static func cancelEventJobs(eventID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM jobs WHERE subject_id IN (SELECT id FROM photos WHERE event_id = \(bind: eventID))").run()
    }
}
