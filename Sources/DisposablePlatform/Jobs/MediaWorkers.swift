import DisposableCore
import Foundation
import Logging
import ServiceLifecycle
import VipsLoader

/// The bounded pool that makes derivatives (MED-1): one worker more than the cores by default, fed by the jobs table.
package struct MediaWorkers: Service {
    package let jobs: JobQueue
    /// Who runs each kind of job: the features register theirs (`JobHandler`).
    package let handlers: [JobQueue.Kind: JobHandler]
    package let newWork: WorkSignal
    package let started: StartupGate
    /// Photos in process at once.
    package let count: Int
    package let releaseLeasesAtStart: Bool
    /// How long an idle worker waits for news before looking again.
    package var idleWait: Duration = .seconds(1)
    package let clock: any AppClock
    package let logger: Logger

    package init(
        jobs: JobQueue, handlers: [JobQueue.Kind: JobHandler], newWork: WorkSignal, started: StartupGate, count: Int, releaseLeasesAtStart: Bool,
        idleWait: Duration = .seconds(1), clock: any AppClock, logger: Logger
    ) {
        self.jobs = jobs
        self.handlers = handlers
        self.newWork = newWork
        self.started = started
        self.count = count
        self.releaseLeasesAtStart = releaseLeasesAtStart
        self.idleWait = idleWait
        self.clock = clock
        self.logger = logger
    }
    /// A job that keeps failing for reasons other than the image (storage down…) gives up after this many tries.
    package static let maxAttempts = 5

    package func run() async throws {
        // None here (a test that renders by hand): stay up like the other services, or the application would end.
        guard count > 0 else { return try await gracefulShutdown() }
        try await cancelWhenGracefulShutdown {
            await started.wait()
            guard !Task.isCancelled else { return }
            if releaseLeasesAtStart { try await jobs.releaseAllLeases() }
            await withDiscardingTaskGroup { group in
                // One worker is kept for event photos, so that a photo nobody sees yet is seen within seconds even while
                // the others transcode videos or render a library import (seconds each).
                for index in 0..<count {
                    group.addTask { await work(keptForEventPhotos: index == 0 && count > 1) }
                }
            }
        }
    }

    private func work(keptForEventPhotos: Bool) async {
        var worked = false
        while !Task.isCancelled {
            let least = keptForEventPhotos ? await newWork.eventPhotosReach() : .library
            do {
                if let job = try await jobs.claim(now: clock.now, upTo: least) {
                    await handle(job)
                    worked = true
                    continue
                }
            } catch  where !Task.isCancelled {
                logger.warning("Could not claim a job: \(error)")
            } catch {
                break  // shutting down
            }
            if worked {
                // The queue is empty: hand the decoders' freed buffers back to the system. glibc keeps them in
                // per-thread arenas otherwise (≈ 100 MB after a burst of 12 MP photos, for as long as the server runs).
                _ = vsl_release_freed_memory()
                worked = false
            }
            await newWork.wait(upTo: least, timeout: idleWait)
        }
    }

    private func handle(_ job: JobQueue.Job) async {
        guard let handler = handlers[job.kind] else {
            // Written by a newer version, or a feature this one lacks: kept for whoever can run it.
            logger.warning("No one here runs jobs of kind \(job.kind.rawValue); it waits an hour.")
            try? await jobs.retry(job, after: 3600, now: clock.now, countAttempt: false)
            return
        }
        do {
            try await handler.run(job)
        } catch let later as RenderLater {
            try? await jobs.retry(job, after: later.delay, now: clock.now, countAttempt: false)
        } catch is StorageFull {
            // The original is safe; only its derivatives could not be written. Wait for space, however long:
            // a full disk must never turn an acknowledged photo into a failed (and deleted) one.
            logger.warning("Storage full while rendering \(job.subjectID); will try again in a minute.")
            try? await jobs.retry(job, after: 60, now: clock.now, countAttempt: false)
        } catch let error as StorageUnavailable {
            Metric.storageError()
            // The same for a bucket out of reach: the photo waits for it, it does not fail.
            logger.warning("\(error) while rendering \(job.subjectID); will try again in 30 seconds.")
            try? await jobs.retry(job, after: 30, now: clock.now, countAttempt: false)
        } catch  where Task.isCancelled {
            // Shutting down, not the photo's fault: the job's lease lapses (or is released at
            // the next start) and the photo is rendered then, as after a crash.
            return
        } catch {
            logger.error("Job \(job.kind.rawValue) for \(job.subjectID) failed (attempt \(job.attempts)): \(error)")
            if job.attempts >= Self.maxAttempts {
                await handler.giveUp(job)
            } else {
                try? await jobs.retry(job, after: pow(2, Double(job.attempts)), now: clock.now)
            }
        }
    }
}

/// What runs the jobs of one kind, registered with the workers by the feature that enqueues them.
package struct JobHandler: Sendable {
    /// Does the job; throws `RenderLater` to run it again later, anything else to count a failed attempt.
    package let run: @Sendable (JobQueue.Job) async throws -> Void
    /// The job kept failing: its subject is marked so, not left waiting.
    package let giveUp: @Sendable (JobQueue.Job) async -> Void

    package init(
        run: @escaping @Sendable (JobQueue.Job) async throws -> Void, giveUp: @escaping @Sendable (JobQueue.Job) async -> Void
    ) {
        self.run = run
        self.giveUp = giveUp
    }
}

/// A job that should run later, not fail: it goes back to the queue for `delay` seconds, no attempt counted.
package struct RenderLater: Error {
    package let delay: TimeInterval

    package init(delay: TimeInterval) { self.delay = delay }
}
