import DisposableAPI
import DisposableCore
import Foundation

/// Background work stored in the database, so that work pending at a crash resumes at start-up.
/// A job is leased while it runs; a lease that runs out (a killed process) makes it due again.
public struct JobQueue: Sendable {
    /// What a job does. Features name their kinds (`extension JobQueue.Kind`) and register who runs them
    /// (`JobHandler`): the queue and its workers know none of them.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// What runs first, lowest first: at a party, every guest's photo must be seen within seconds however
    /// many arrive, so the photos nobody sees yet go before those shown by their first look, and the event's photos
    /// before its videos and anyone's library.
    /// Within a priority, owners take turns. Recaps, capsules and collages are not jobs: they run on their own.
    package enum Priority: Int, Sendable {
        case unseen = 0
        case seen = 1
        case video = 2
        case library = 3
    }

    package struct Job: Sendable {
        package let id: String
        package let kind: Kind
        package let subjectID: String
        package let attempts: Int

        package init(id: String, kind: Kind, subjectID: String, attempts: Int) {
            self.id = id
            self.kind = kind
            self.subjectID = subjectID
            self.attempts = attempts
        }
    }

    package let rows: JobRepository

    package init(rows: JobRepository) {
        self.rows = rows
    }
    /// How long a worker may hold a job before others may take it. A render takes well under a second
    /// (a 100-megapixel image, the largest accepted, a few seconds), so a job of a killed instance is
    /// picked up again within half a minute — by a restarted instance or any other one.
    package static let lease: TimeInterval = 30

    /// Leases a due job, if any, for `lease`: the most urgent first (`JobRepository.claim` says in which order).
    /// `upTo`: the least urgent priority this worker takes (the worker kept for event photos takes no video or library work).
    package func claim(now: Date, upTo least: Priority = .library) async throws -> Job? {
        try await rows.claim(now: now, leaseEnd: now + Self.lease, upTo: least)
    }

    package func complete(_ jobID: String) async throws {
        try await rows.complete(jobID)
    }

    /// Gives a job back to run again after `delay`. `countAttempt: false` when the failure was not the
    /// job's fault (a full disk): the attempt taken by the lease is given back.
    package func retry(_ job: Job, after delay: TimeInterval, now: Date, countAttempt: Bool = true) async throws {
        try await rows.retry(job.id, runAfter: now + delay, attempts: countAttempt ? job.attempts : max(0, job.attempts - 1))
    }

    /// At start-up of the only instance (SQLite), every lease belongs to a process that is gone.
    package func releaseAllLeases() async throws {
        try await rows.releaseAllLeases()
    }
}
