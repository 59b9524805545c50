import DisposableAPI
import Foundation
import SQLKit

/// Background work stored in the database, so that work pending at a crash resumes at start-up.
/// A job is leased while it runs; a lease that runs out (a killed process) makes it due again.
public struct JobQueue: Sendable {
    public enum Kind: String, Sendable {
        /// An event photo's first look (its thumbnail: then everyone sees it), or a whole event video.
        case renderPhoto = "render-photo"
        /// An event photo's preview, once its thumbnail is shown.
        case renderPreview = "render-preview"
        /// A library asset's derivatives (`LibraryRenderer`).
        case renderAsset = "render-asset"
    }

    /// What runs first, lowest first: at a party, every guest's photo must be seen within seconds however
    /// many arrive, so thumbnails go before previews, and the event's photos before its videos and anyone's library.
    /// Within a priority, owners take turns. Recaps, capsules and collages are not jobs: they run on their own.
    enum Priority: Int, Sendable {
        case thumbnail = 0
        case preview = 1
        case video = 2
        case library = 3
    }

    struct Job: Sendable {
        let id: String
        let kind: Kind
        let subjectID: String
        let attempts: Int
    }

    let database: any DatabaseEngine
    /// How long a worker may hold a job before others may take it. A render takes well under a second
    /// (a 100-megapixel image, the largest accepted, a few seconds), so a job of a killed instance is
    /// picked up again within half a minute — by a restarted instance or any other one.
    static let lease: TimeInterval = 30

    /// `owner`: whose work it is (the uploader), for taking turns.
    static func enqueue(
        _ kind: Kind, subjectID: String, owner: String, priority: Priority, now: Date, in db: any SQLDatabase
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

    /// Leases a due job, if any: the most urgent kind of work first (`Priority`), and within it taking turns between
    /// owners: first the jobs that had the fewest of their owner's jobs of that priority before them when queued
    /// (`turn`), then the oldest. Read in the order of an index: a claim takes the write lock, and counting each
    /// job's predecessors here instead cost 140 ms a claim with 1,800 jobs queued — on event night, the uploads'
    /// and renders' own transactions waited behind it. A guest who sends 50 photos at once
    /// does not hold up the next guest's one. The guard in the UPDATE makes two workers
    /// (or two instances) racing for the same job end with one winner.
    /// `upTo`: the least urgent priority this worker takes (the worker kept for first looks takes thumbnails only).
    func claim(now: Date, upTo least: Priority = .library) async throws -> Job? {
        let nowMS = now.millisecondsSince1970
        let leaseEnd = (now + Self.lease).millisecondsSince1970
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
                ).first(),
                let kind = Kind(rawValue: try row.decode(column: "kind", as: String.self))
            else { return nil }
            return Job(
                id: try row.decode(column: "id", as: String.self), kind: kind,
                subjectID: try row.decode(column: "subject_id", as: String.self),
                attempts: try row.decode(column: "attempts", as: Int.self))
        }
    }

    /// Whether a job of `priority` other than `jobID` is due: waiting for a worker or in another worker's hands.
    func othersDue(_ priority: Priority, besides jobID: String, now: Date) async throws -> Bool {
        try await database.read { db in
            try await db.raw(
                """
                SELECT 1 AS due FROM jobs WHERE priority = \(bind: priority.rawValue) AND run_after <= \(bind: now.millisecondsSince1970)
                    AND id <> \(bind: jobID)
                LIMIT 1
                """
            ).first() != nil
        }
    }

    static func complete(_ jobID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM jobs WHERE id = \(bind: jobID)").run()
    }

    func complete(_ jobID: String) async throws {
        try await database.sql { try await Self.complete(jobID, in: $0) }
    }

    /// Gives a job back to run again after `delay`. `countAttempt: false` when the failure was not the
    /// job's fault (a full disk): the attempt taken by the lease is given back.
    func retry(_ job: Job, after delay: TimeInterval, now: Date, countAttempt: Bool = true) async throws {
        let attempts = countAttempt ? job.attempts : max(0, job.attempts - 1)
        try await database.sql { db in
            try await db.raw(
                """
                UPDATE jobs SET leased_until = NULL, run_after = \(bind: (now + delay).millisecondsSince1970), attempts = \(bind: attempts)
                WHERE id = \(bind: job.id)
                """
            ).run()
        }
    }

    /// At start-up of the only instance (SQLite), every lease belongs to a process that is gone.
    func releaseAllLeases() async throws {
        try await database.sql { db in try await db.raw("UPDATE jobs SET leased_until = NULL").run() }
    }
}
