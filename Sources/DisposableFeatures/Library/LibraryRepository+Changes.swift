import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// What happens to assets after their upload — trashed, restored, purged, replaced by an edit, given their motion,
/// rendered or failed — each taking the next revision of the owner's library.
extension LibraryRepository {
    /// Moves an asset to the trash, or back (`trashedAt` nil); nil when it is not where it should be.
    package func setTrashed(_ asset: LibraryAsset, at trashedAt: Date?) async throws -> LibraryAsset? {
        try await database.transaction { db in
            let revision = try await Self.nextRevision(userID: asset.userID, in: db)
            let kind: LibraryChangeKind = trashedAt == nil ? .restored : .trashed
            guard
                try await db.raw(
                    """
                    UPDATE library_assets SET trashed_at = \(bind: trashedAt?.millisecondsSince1970), revision = \(bind: revision),
                        last_change = \(bind: kind.rawValue)
                    WHERE id = \(bind: asset.id) AND deleted_at IS NULL AND trashed_at IS \(unsafeRaw: trashedAt == nil ? "NOT NULL" : "NULL")
                    RETURNING id
                    """
                ).first() != nil
            else { throw RollBack.gone }
            return try await Self.find(id: asset.id, in: db)
        }
    }

    /// Deletes an asset for good: the row becomes a tombstone, its bytes leave the quota, and its files are
    /// recorded as pending removal in the same transaction (the caller removes them; a crash leaves them to
    /// `PendingWrites.reconcile`). False when it was deleted already.
    package func purge(_ asset: LibraryAsset, now: Date, instance: String) async throws -> Bool {
        do {
            try await database.transaction { db in
                let revision = try await Self.nextRevision(userID: asset.userID, in: db)
                guard
                    try await db.raw(
                        """
                        UPDATE library_assets SET deleted_at = \(bind: now.millisecondsSince1970), revision = \(bind: revision),
                            last_change = 'deleted', idempotency_key = NULL
                        WHERE id = \(bind: asset.id) AND deleted_at IS NULL
                        RETURNING id
                        """
                    ).first() != nil
                else { throw RollBack.gone }
                try await JobRepository.cancel(subjectID: asset.id, in: db)
                try await UserRepository.releaseQuota(asset.chargedBytes, userID: asset.userID, in: db)
                try await PendingWriteRepository.begin(.all(user: asset.userID, asset: asset.id), startedAt: .distantPast, instance: instance, in: db)
            }
            return true
        } catch RollBack.gone {
            return false
        }
    }

    /// Assets in the trash since before `date` (the sweeper's), a batch at a time.
    package func trashed(before date: Date, limit: Int) async throws -> [LibraryAsset] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM library_assets WHERE trashed_at < \(bind: date.millisecondsSince1970) AND deleted_at IS NULL
                ORDER BY trashed_at LIMIT \(unsafeRaw: String(limit))
                """
            ).all().map(LibraryAsset.from)
        }
    }

    package func trashed(userID: String) async throws -> [LibraryAsset] {
        try await database.read { db in
            try await db.raw("SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND trashed_at IS NOT NULL AND deleted_at IS NULL")
                .all().map(LibraryAsset.from)
        }
    }

    package enum ReplaceOutcome: Sendable {
        case replaced(LibraryAsset)
        case quotaExceeded
        /// Another asset holds this content.
        case conflict
        /// Deleted, in the trash, or edited by someone else meanwhile.
        case gone
    }

    /// An edit (LIB-2): the same asset at the next file revision, processing again. The old revision's files are
    /// recorded as pending removal; the new ones' pending write ends.
    package func replace(
        _ asset: LibraryAsset, sha256: String, format: MediaFormat, byteSize: Int64, motion: Motion?, now: Date, instance: String
    ) async throws -> ReplaceOutcome {
        do {
            return try await database.transaction { db in
                let revision = try await Self.nextRevision(userID: asset.userID, in: db)
                let updated = try await db.raw(
                    """
                    UPDATE library_assets SET sha256 = \(bind: sha256), format = \(bind: format.rawValue), byte_size = \(bind: byteSize),
                        derivative_bytes = 0, width = NULL, height = NULL, status = 'processing', file_revision = file_revision + 1,
                        revision = \(bind: revision), last_change = 'updated',
                        taken_at = CASE WHEN taken_at_given THEN taken_at ELSE uploaded_at END,
                        motion = \(bind: motion?.kind.rawValue), motion_offset = \(bind: motion?.offset), motion_size = \(bind: motion?.size),
                        motion_type = \(bind: motion?.contentType), duration_ms = NULL
                    WHERE id = \(bind: asset.id) AND file_revision = \(bind: asset.fileRevision) AND deleted_at IS NULL AND trashed_at IS NULL
                    RETURNING id
                    """
                ).first()
                guard updated != nil else { throw RollBack.gone }
                // A live photo's stored video goes with the old version.
                let delta = byteSize - asset.chargedBytes
                if delta > 0 {
                    guard try await UserRepository.chargeQuota(delta, userID: asset.userID, in: db) else { throw RollBack.quotaExceeded }
                } else {
                    try await UserRepository.releaseQuota(-delta, userID: asset.userID, in: db)
                }
                let replaced = try await Self.find(id: asset.id, in: db)!
                try await PendingWriteRepository.end(photoID: replaced.files.writeID, in: db)
                try await PendingWriteRepository.begin(asset.files, startedAt: .distantPast, instance: instance, in: db)
                try await JobRepository.cancel(subjectID: asset.id, in: db)
                try await JobRepository.enqueue(.renderAsset, subjectID: asset.id, owner: asset.userID, priority: .library, now: now, in: db)
                return .replaced(replaced)
            }
        } catch RollBack.gone {
            return .gone
        } catch RollBack.quotaExceeded {
            return .quotaExceeded
        } catch let error where Self.isUniqueViolation(error) {
            return .conflict
        }
    }

    /// The content index refused the edit: another asset of the library already holds these bytes.
    private static func isUniqueViolation(_ error: any Error) -> Bool {
        let text = String(describing: error).lowercased()
        return text.contains("unique") || text.contains("duplicate key")
    }

    package enum MotionOutcome: Sendable {
        case attached(LibraryAsset)
        case quotaExceeded
        case gone
    }

    /// LIB-3: an Apple Live Photo's video, stored (`LibraryFiles.motion`) beside the revision it belongs to.
    package func attach(_ motion: Motion, to asset: LibraryAsset) async throws -> MotionOutcome {
        do {
            return try await database.transaction { db in
                let revision = try await Self.nextRevision(userID: asset.userID, in: db)
                guard
                    try await db.raw(
                        """
                        UPDATE library_assets SET motion = 'file', motion_offset = 0, motion_size = \(bind: motion.size),
                            motion_type = \(bind: motion.contentType), revision = \(bind: revision), last_change = 'updated'
                        WHERE id = \(bind: asset.id) AND file_revision = \(bind: asset.fileRevision) AND deleted_at IS NULL
                            AND motion IS NULL
                        RETURNING id
                        """
                    ).first() != nil
                else { throw RollBack.gone }
                guard try await UserRepository.chargeQuota(motion.size, userID: asset.userID, in: db) else { throw RollBack.quotaExceeded }
                return .attached(try await Self.find(id: asset.id, in: db)!)
            }
        } catch RollBack.gone {
            return .gone
        } catch RollBack.quotaExceeded {
            return .quotaExceeded
        }
    }

    /// Records the derivatives of the revision that was rendered; nil when the asset changed meanwhile (edited,
    /// deleted). The capture time read from the file wins over one the client gave.
    package func markReady(
        _ asset: LibraryAsset, jobID: String, width: Int, height: Int, takenAt: CapturedAt?, derivativeBytes: Int64,
        video: RenderedVideoFacts? = nil, signals: PhotoSignals? = nil
    ) async throws -> LibraryAsset? {
        do {
            return try await ready(
                asset, jobID: jobID, width: width, height: height, takenAt: takenAt, derivativeBytes: derivativeBytes, video: video,
                signals: signals)
        } catch RollBack.gone {
            try await database.sql { db in try await JobRepository.complete(jobID, in: db) }
            return nil
        }
    }

    /// A capture time read from the file: the moment, and the clock where it was taken.
    package struct CapturedAt: Sendable {
        package let instant: Date
        package let local: Date
        package let offset: Int?
    }

    /// A video's playable copy and length, recorded with its derivatives.
    package struct RenderedVideoFacts: Sendable {
        package let playable: Motion
        package let durationMilliseconds: Int64?
    }

    private func ready(
        _ asset: LibraryAsset, jobID: String, width: Int, height: Int, takenAt: CapturedAt?, derivativeBytes: Int64,
        video: RenderedVideoFacts?, signals: PhotoSignals?
    ) async throws -> LibraryAsset? {
        try await database.transaction { db in
            try await JobRepository.complete(jobID, in: db)
            let revision = try await Self.nextRevision(userID: asset.userID, in: db)
            guard
                try await db.raw(
                    """
                    UPDATE library_assets SET status = 'ready', width = \(bind: width), height = \(bind: height),
                        taken_at = \(bind: (takenAt?.instant ?? asset.takenAt).millisecondsSince1970),
                        taken_local = \(bind: (takenAt?.local ?? asset.takenLocal)?.millisecondsSince1970),
                        taken_offset = \(bind: takenAt == nil ? asset.takenOffset : takenAt?.offset), derivative_bytes = \(bind: derivativeBytes),
                        revision = \(bind: revision),
                        motion = COALESCE(\(bind: video?.playable.kind.rawValue), motion),
                        motion_offset = COALESCE(\(bind: video?.playable.offset), motion_offset),
                        motion_size = COALESCE(\(bind: video?.playable.size), motion_size),
                        motion_type = COALESCE(\(bind: video?.playable.contentType), motion_type),
                        duration_ms = \(bind: video?.durationMilliseconds), signals = \(bind: signals?.stored)
                    WHERE id = \(bind: asset.id) AND file_revision = \(bind: asset.fileRevision) AND status = 'processing'
                        AND deleted_at IS NULL
                    RETURNING id
                    """
                ).first() != nil
            else { throw RollBack.gone }
            try await PendingWriteRepository.end(photoID: asset.files.writeID, in: db)
            return try await Self.find(id: asset.id, in: db)
        }
    }

    /// The file could not be decoded: the asset stays (with its original — it is the user's file) as failed.
    package func markFailed(_ asset: LibraryAsset, jobID: String) async throws -> LibraryAsset? {
        try await database.transaction { db in
            try await JobRepository.complete(jobID, in: db)
            let revision = try await Self.nextRevision(userID: asset.userID, in: db)
            try await db.raw(
                """
                UPDATE library_assets SET status = 'failed', revision = \(bind: revision)
                WHERE id = \(bind: asset.id) AND file_revision = \(bind: asset.fileRevision) AND status = 'processing'
                """
            ).run()
            return try await Self.find(id: asset.id, in: db)
        }
    }
}

extension LibraryRepository.CapturedAt {
    /// What the file says, a clock without an offset placed in the owner's zone (`zone`).
    package init?(_ time: CaptureTime?, zone: TimeZone) {
        guard let time else { return nil }
        self.init(instant: time.instant(floatingIn: zone), local: time.wallClock, offset: time.offset)
    }
}
