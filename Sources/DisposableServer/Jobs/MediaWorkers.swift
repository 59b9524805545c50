import Foundation
import Logging
import ServiceLifecycle
import SQLKit
import VipsLoader

/// The bounded pool that makes derivatives (MED-1): one worker more than the cores by default, fed by the jobs table.
struct MediaWorkers: Service {
    let services: AppServices
    /// A job that keeps failing for reasons other than the image (storage down…) gives up after this many tries.
    static let maxAttempts = 5

    func run() async throws {
        await services.started.wait()
        if services.database.kind == .sqlite { try await services.jobs.releaseAllLeases() }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for _ in 0..<services.configuration.mediaWorkers {
                    group.addTask { await work() }
                }
            }
        }
    }

    private func work() async {
        var worked = false
        while !Task.isCancelled {
            do {
                if let job = try await services.jobs.claim(now: services.clock.now) {
                    await handle(job)
                    worked = true
                    continue
                }
            } catch where !Task.isCancelled {
                services.logger.warning("Could not claim a job: \(error)")
            } catch {
                break  // shutting down
            }
            if worked {
                // The queue is empty: hand the decoders' freed buffers back to the system. glibc keeps them in
                // per-thread arenas otherwise (≈ 100 MB after a burst of 12 MP photos, for as long as the server runs).
                _ = vsl_release_freed_memory()
                worked = false
            }
            await services.newWork.wait(timeout: .seconds(1))
        }
    }

    private func handle(_ job: JobQueue.Job) async {
        do {
            switch job.kind {
            case .renderPhoto: try await PhotoRenderer(services: services).render(photoID: job.subjectID, jobID: job.id)
            }
        } catch is StorageFull {
            // The original is safe; only its derivatives could not be written. Wait for space, however long:
            // a full disk must never turn an acknowledged photo into a failed (and deleted) one.
            services.logger.warning("Storage full while rendering \(job.subjectID); will try again in a minute.")
            try? await services.jobs.retry(job, after: 60, now: services.clock.now, countAttempt: false)
        } catch where Task.isCancelled {
            // Shutting down, not the photo's fault: the job's lease lapses (or is released at
            // the next start) and the photo is rendered then, as after a crash.
            return
        } catch {
            services.logger.error("Job \(job.kind.rawValue) for \(job.subjectID) failed (attempt \(job.attempts)): \(error)")
            if job.attempts >= Self.maxAttempts {
                try? await PhotoRenderer(services: services).fail(photoID: job.subjectID, jobID: job.id, reason: "Processing kept failing.")
            } else {
                try? await services.jobs.retry(job, after: pow(2, Double(job.attempts)), now: services.clock.now)
            }
        }
    }
}

/// Makes a photo's preview and thumbnail and marks it ready — or failed when libvips cannot decode it.
struct PhotoRenderer {
    let services: AppServices

    func render(photoID: String, jobID: String) async throws {
        guard let photo = try await services.photos.find(id: photoID), photo.status == .processing else {
            try await services.database.sql { try await JobQueue.complete(jobID, in: $0) }
            return
        }
        let rendered: RenderedImage
        do {
            rendered = try await services.blobs.withLocalFile(key: BlobKey.original(photo.eventID, photo.id)) { path in
                try await services.images.render(path, format: photo.format)
            }
        } catch let error as UndecodableImage {
            try await fail(photoID: photoID, jobID: jobID, reason: "This file could not be read as an image (\(error.description)).")
            return
        }
        try await services.blobs.put(data: rendered.preview, key: BlobKey.preview(photo.eventID, photo.id))
        try await services.blobs.put(data: rendered.thumbnail, key: BlobKey.thumbnail(photo.eventID, photo.id))
        let takenAt = (rendered.takenAt ?? photo.uploadedAt).millisecondsSince1970
        let derivativeBytes = Int64(rendered.preview.count + rendered.thumbnail.count)
        let now = services.clock.now
        let databaseKind = services.database.kind
        let updated = try await services.database.transaction { db in
            try await JobQueue.complete(jobID, in: db)
            guard
                try await db.raw(
                    """
                    UPDATE photos SET status = 'ready', width = \(bind: rendered.width), height = \(bind: rendered.height),
                        taken_at = \(bind: takenAt), derivative_bytes = \(bind: derivativeBytes)
                    WHERE id = \(bind: photoID) AND status = 'processing'
                    RETURNING id
                    """
                ).first() != nil,
                let ready = try await PhotoRepository.find(id: photoID, in: db)
            else { return false }
            try await ChangeLog.append(
                .photoReady, eventID: ready.eventID, photo: ready, payload: PhotoChange(kind: .photoReady, photo: PhotoJSON(ready, viewerID: nil, links: nil)),
                now: now, kindOfDatabase: databaseKind, in: db)
            return true
        }
        // Deleted while we worked: what we just wrote must not stay behind.
        if !updated { try await services.blobs.delete(prefix: BlobKey.photo(photo.eventID, photo.id)) }
        await services.changes.refresh(photo.eventID)
    }

    /// Marks the photo failed and removes its files: a file we cannot decode is not kept.
    func fail(photoID: String, jobID: String, reason: String) async throws {
        let now = services.clock.now
        let databaseKind = services.database.kind
        let photo = try await services.database.transaction { db -> Photo? in
            try await JobQueue.complete(jobID, in: db)
            try await db.raw("UPDATE photos SET status = 'failed', failure = \(bind: reason) WHERE id = \(bind: photoID)").run()
            guard let failed = try await PhotoRepository.find(id: photoID, in: db) else { return nil }
            try await ChangeLog.append(
                .photoFailed, eventID: failed.eventID, photo: failed, payload: PhotoChange(kind: .photoFailed, photo: PhotoJSON(failed, viewerID: nil, links: nil)),
                now: now, kindOfDatabase: databaseKind, in: db)
            return failed
        }
        if let photo {
            try await services.blobs.delete(prefix: BlobKey.photo(photo.eventID, photo.id))
            await services.changes.refresh(photo.eventID)
        }
    }
}
