import Foundation
import Logging
import ServiceLifecycle
import VipsLoader

/// The bounded pool that makes derivatives (MED-1): one worker more than the cores by default, fed by the jobs table.
struct MediaWorkers: Service {
    let jobs: JobQueue
    let renderer: PhotoRenderer
    let libraryRenderer: LibraryRenderer
    let newWork: WorkSignal
    let started: StartupGate
    /// Photos in process at once.
    let count: Int
    let releaseLeasesAtStart: Bool
    /// How long an idle worker waits for news before looking again.
    var idleWait: Duration = .seconds(1)
    let clock: any AppClock
    let logger: Logger
    /// A job that keeps failing for reasons other than the image (storage down…) gives up after this many tries.
    static let maxAttempts = 5

    func run() async throws {
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
        do {
            switch job.kind {
            case .renderPhoto: try await renderer.render(photoID: job.subjectID, jobID: job.id)
            case .renderPreview: try await renderer.renderPreview(photoID: job.subjectID, jobID: job.id)
            case .renderAsset: try await libraryRenderer.render(assetID: job.subjectID, jobID: job.id)
            }
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
                switch job.kind {
                case .renderPhoto, .renderPreview:
                    try? await renderer.fail(photoID: job.subjectID, jobID: job.id, reason: "Processing kept failing.")
                case .renderAsset: try? await libraryRenderer.fail(assetID: job.subjectID, jobID: job.id)
                }
            } else {
                try? await jobs.retry(job, after: pow(2, Double(job.attempts)), now: clock.now)
            }
        }
    }
}
