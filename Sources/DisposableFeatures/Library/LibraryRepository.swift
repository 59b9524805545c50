import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Library assets in the database. Every change takes the next number of the user's library counter
/// (`library_sequences`) in its own transaction, so the change feed is the assets ordered by `revision`.
struct LibraryRepository: Sendable {
    package let database: Database

    package struct NewAsset: Sendable {
        package let id: String
        package let userID: String
        package let idempotencyKey: String?
        package let sha256: String
        package let format: MediaFormat
        package let byteSize: Int64
        package let takenAt: Date?
        package let fileName: String
        package let uploadedAt: Date
        package var sourcePhotoID: String? = nil
        /// A Google motion photo's MP4, found in the original.
        package var motion: Motion? = nil
        package var caption: String? = nil
        /// The picture's own capture time, read from its header at upload; its render reads the same.
        package var captured: CapturedAt? = nil
    }

    package enum InsertOutcome: Sendable {
        case inserted(LibraryAsset)
        case quotaExceeded
        /// The idempotency key or the content is already there (the caller looks up which).
        case conflict
    }

    /// Records an asset whose original is stored: charges the quota, inserts the row and its render job, ends the
    /// pending write — one transaction.
    package func insert(_ new: NewAsset) async throws -> InsertOutcome {
        do {
            return try await database.transaction { db in
                let revision = try await Self.nextRevision(userID: new.userID, in: db)
                let inserted = try await db.raw(
                    """
                    INSERT INTO library_assets (id, user_id, sha256, format, byte_size, taken_at, taken_local, taken_offset, taken_at_given,
                        uploaded_at, file_name, idempotency_key, status, file_revision, revision, last_change, source_photo_id, motion,
                        motion_offset, motion_size, motion_type, caption)
                    VALUES (\(bind: new.id), \(bind: new.userID), \(bind: new.sha256), \(bind: new.format.rawValue), \(bind: new.byteSize),
                        \(bind: (new.captured?.instant ?? new.takenAt ?? new.uploadedAt).millisecondsSince1970),
                        \(bind: new.captured?.local.millisecondsSince1970), \(bind: new.captured?.offset), \(bind: new.takenAt != nil),
                        \(bind: new.uploadedAt.millisecondsSince1970), \(bind: new.fileName), \(bind: new.idempotencyKey), 'processing', 1,
                        \(bind: revision), 'added', \(bind: new.sourcePhotoID), \(bind: new.motion?.kind.rawValue), \(bind: new.motion?.offset),
                        \(bind: new.motion?.size), \(bind: new.motion?.contentType), \(bind: new.caption))
                    ON CONFLICT DO NOTHING
                    RETURNING id
                    """
                ).first()
                guard inserted != nil else { throw RollBack.conflict }
                guard try await UserRepository.chargeQuota(new.byteSize, userID: new.userID, in: db) else { throw RollBack.quotaExceeded }
                let asset = try await Self.find(id: new.id, in: db)!
                try await PendingWriteRepository.end(photoID: asset.files.writeID, in: db)
                try await JobRepository.enqueue(.renderAsset, subjectID: new.id, owner: new.userID, priority: .library, now: new.uploadedAt, in: db)
                return .inserted(asset)
            }
        } catch RollBack.conflict {
            return .conflict
        } catch RollBack.quotaExceeded {
            return .quotaExceeded
        }
    }

    package enum RollBack: Error {
        case conflict, quotaExceeded, gone
    }

    /// What the account counts against its quota, and may (`Quota`).
    package func usage(userID: String) async throws -> Quota.Usage? {
        try await database.read { db in try await UserRepository.usage(userID: userID, in: db) }
    }

    package static func nextRevision(userID: String, in db: any SQLDatabase) async throws -> Int64 {
        guard let revision = try await Self.counted(userID: userID, in: db) else {
            throw Problem.unauthorized  // the account was deleted meanwhile
        }
        return revision
    }

    package func find(id: String) async throws -> LibraryAsset? {
        try await database.read { db in try await Self.find(id: id, in: db) }
    }

    package static func find(id: String, in db: any SQLDatabase) async throws -> LibraryAsset? {
        try await db.raw("SELECT * FROM library_assets WHERE id = \(bind: id)").first().map(LibraryAsset.from)
    }

    package func find(userID: String, idempotencyKey: String) async throws -> LibraryAsset? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND idempotency_key = \(bind: idempotencyKey)")
                .first().map(LibraryAsset.from)
        }
    }

    /// The asset holding this content, in the timeline or the trash.
    package func find(userID: String, sha256: String) async throws -> LibraryAsset? {
        try await database.sql { db in
            try await db.raw(
                "SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND sha256 = \(bind: sha256) AND deleted_at IS NULL"
            ).first().map(LibraryAsset.from)
        }
    }

    package func existingHashes(userID: String, among hashes: [String]) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        return try await database.read { db in
            Set(
                try await db.raw(
                    """
                    SELECT sha256 FROM library_assets
                    WHERE user_id = \(bind: userID) AND sha256 IN (\(binds: hashes)) AND deleted_at IS NULL
                    """
                ).all().map { try $0.decode(column: "sha256", as: String.self) })
        }
    }

    typealias Listing = LibraryListing

    package func page(userID: String, _ listing: Listing, after cursor: GalleryCursor?, limit: Int) async throws -> (
        items: [LibraryAsset], next: GalleryCursor?
    ) {
        try await database.read { db in
            var sql = SQLQueryString(
                "SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND deleted_at IS NULL AND \(unsafeRaw: listing.condition)")
            sql.newestFirst(by: listing.column, after: cursor.map { ($0.time, $0.id) }, limit: limit)
            let assets = try await db.raw(sql).all().map(LibraryAsset.from)
            guard assets.count > limit else { return (assets, nil) }
            let last = assets[limit - 1]
            let time = listing == .timeline ? last.takenAt : (last.trashedAt ?? last.takenAt)
            return (Array(assets.prefix(limit)), GalleryCursor(time: time.millisecondsSince1970, id: last.id))
        }
    }

    /// The feed: assets changed after `revision`, oldest change first (tombstones included).
    package func changes(userID: String, after revision: Int64, limit: Int) async throws -> [LibraryAsset] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND revision > \(bind: revision)
                ORDER BY revision LIMIT \(unsafeRaw: String(limit))
                """
            ).all().map(LibraryAsset.from)
        }
    }

    package func latestRevision(userID: String) async throws -> Int64 {
        try await database.read { db in
            try await db.raw("SELECT seq FROM library_sequences WHERE user_id = \(bind: userID)").first()?.decode(column: "seq", as: Int64.self) ?? 0
        }
    }

    /// Whether a row vouches for these files: the asset exists, not deleted, at this file revision.
    package static func isRecorded(_ files: LibraryFiles, in db: any SQLDatabase) async throws -> Bool {
        let parts = files.writeID.split(separator: "@")
        guard parts.count == 2, let fileRevision = Int(parts[1]) else { return false }
        return try await db.raw(
            """
            SELECT id FROM library_assets WHERE id = \(bind: String(parts[0])) AND file_revision = \(bind: fileRevision)
                AND deleted_at IS NULL
            """
        ).first() != nil
    }

    package func isRecorded(_ files: LibraryFiles) async throws -> Bool {
        try await database.read { db in try await Self.isRecorded(files, in: db) }
    }
}

extension LibraryRepository {
    /// The account's library change counter, moved on by one; nil when the account is gone.
    package static func counted(userID: String, in db: any SQLDatabase) async throws -> Int64? {
        try await db.raw(
            """
            INSERT INTO library_sequences (user_id, seq) SELECT id, 1 FROM users WHERE id = \(bind: userID)
            ON CONFLICT (user_id) DO UPDATE SET seq = library_sequences.seq + 1
            RETURNING seq
            """
        ).first()?.decode(column: "seq", as: Int64.self)
    }
}

package enum LibraryListing: Sendable {
    /// The timeline: newest capture first.
    case timeline
    /// The trash: latest deleted first.
    case trash

    package var column: String { self == .timeline ? "taken_at" : "trashed_at" }
    package var condition: String { self == .timeline ? "trashed_at IS NULL" : "trashed_at IS NOT NULL" }
}
