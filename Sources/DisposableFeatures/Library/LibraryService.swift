import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// A user's own library (LIB-1, LIB-2, LIB-4, LIB-6, UP-6/7): uploads, the timeline, edits, the trash and the change
/// feed. An asset is its owner's alone: anyone else — another account, a guest, the admin — gets 404.
package struct LibraryService: Sendable {
    /// Which of the library a page lists (the timeline, the trash, …).
    package typealias Listing = LibraryListing

    let assets: LibraryRepository
    /// Event photos' grants (saving one to the library).
    package let photos: PhotoService
    package let blobs: any BlobStore
    /// Files come in through it, under `policy`.
    package let ingest: Ingest
    /// What the library takes: photos within the server's limits, videos up to `--max-library-video-minutes`.
    package let policy: IngestPolicy
    /// A deleted or replaced asset's files go as an abandoned write's do.
    package let pendingWrites: PendingWrites
    package let newWork: WorkSignal
    package let feed: StreamWaker
    package let clock: any AppClock
    package let logger: Logger
    /// The zone a capture time without an offset is read in: the owner's.
    package var ownerZone: @Sendable (_ userID: String) async throws -> TimeZone = { _ in .gmt }

    init(
        assets: LibraryRepository, photos: PhotoService, blobs: any BlobStore, ingest: Ingest, policy: IngestPolicy, pendingWrites: PendingWrites,
        newWork: WorkSignal, feed: StreamWaker, clock: any AppClock, logger: Logger,
        ownerZone: @escaping @Sendable (_ userID: String) async throws -> TimeZone = { _ in .gmt }
    ) {
        self.assets = assets
        self.photos = photos
        self.blobs = blobs
        self.ingest = ingest
        self.policy = policy
        self.pendingWrites = pendingWrites
        self.newWork = newWork
        self.feed = feed
        self.clock = clock
        self.logger = logger
        self.ownerZone = ownerZone
    }
    /// How long the trash keeps an asset (LIB-2), counted from its deletion.
    package static let trashDays = 30

    package static let notFound = Problem.notFound("There is no asset with this id in your library.")

    package struct UploadRequest: Sendable {
        package let idempotencyKey: String?
        /// `X-Taken-At`: when the file itself does not say.
        package let takenAt: Date?
        package let fileName: String?
        package let declaredLength: Int64?
        /// `X-Caption`: the words an import brings with the file.
        package var caption: String? = nil

        package init(idempotencyKey: String?, takenAt: Date?, fileName: String?, declaredLength: Int64?, caption: String? = nil) {
            self.idempotencyKey = idempotencyKey
            self.takenAt = takenAt
            self.fileName = fileName
            self.declaredLength = declaredLength
            self.caption = caption
        }
    }

    package enum Uploaded: Sendable {
        case created(LibraryAsset)
        /// The same idempotency key was sent before: the asset it made.
        case existing(LibraryAsset)
    }

    // MARK: Reading

    /// The caller's own asset (timeline or trash), or 404.
    package func asset(_ id: String, for user: User) async throws -> LibraryAsset {
        guard let asset = try await assets.find(id: id), asset.userID == user.id, asset.deletedAt == nil else { throw Self.notFound }
        return asset
    }

    /// The asset an uploader's idempotency key made, if any (a retried upload gets it back).
    package func asset(uploaderID: String, idempotencyKey: String) async throws -> LibraryAsset? {
        try await assets.find(userID: uploaderID, idempotencyKey: idempotencyKey)
    }

    /// The feed's position now: a page's live updates start there.
    package func latestRevision(for user: User) async throws -> Int64 {
        try await assets.latestRevision(userID: user.id)
    }

    package func page(_ listing: LibraryListing, for user: User, cursor token: String?, limit: Int) async throws -> LibraryPage {
        var cursor: GalleryCursor? = nil
        if let token {
            guard let parsed = GalleryCursor(token: token) else {
                throw Problem.invalidField("cursor", "This cursor is not one the server gave; start again without it.")
            }
            cursor = parsed
        }
        let (items, next) = try await assets.page(userID: user.id, listing, after: cursor, limit: limit)
        return LibraryPage(items: items.map(\.json), nextCursor: next?.token)
    }

    /// The feed after `since`, oldest change first.
    package func changes(for user: User, since: Int64, limit: Int) async throws -> LibraryChangesPage {
        let changed = try await assets.changes(userID: user.id, after: since, limit: limit + 1)
        let items = changed.prefix(limit).map(\.change)
        return LibraryChangesPage(items: items, next: items.last?.revision ?? since, hasMore: changed.count > limit)
    }

    // MARK: Changing

    /// DELETE: into the trash; from the trash, for good.
    package func delete(_ id: String, for user: User) async throws {
        let asset = try await asset(id, for: user)
        if asset.trashedAt != nil {
            try await purge(asset)
        } else if try await assets.setTrashed(asset, at: clock.now) != nil {
            await feed.changed(user.id)
        }
    }

    package func restore(_ id: String, for user: User) async throws -> LibraryAsset {
        let asset = try await asset(id, for: user)
        guard asset.trashedAt != nil else { return asset }
        guard let restored = try await assets.setTrashed(asset, at: nil) else { throw Self.notFound }
        await feed.changed(user.id)
        return restored
    }

    package func emptyTrash(for user: User) async throws -> Int {
        var deleted = 0
        for asset in try await assets.trashed(userID: user.id) where try await purge(asset) { deleted += 1 }
        return deleted
    }

    /// Assets in the trash for more than 30 days, deleted for good (the retention sweeper's round).
    package func purgeExpiredTrash() async throws -> Int {
        let before = clock.now - TimeInterval(Self.trashDays * 86_400)
        var purged = 0
        while true {
            let batch = try await assets.trashed(before: before, limit: 100)
            for asset in batch where try await purge(asset) { purged += 1 }
            if batch.count < 100 { break }
        }
        if purged > 0 { logger.info("Deleted \(purged) library assets after \(Self.trashDays) days in the trash.") }
        return purged
    }

    @discardableResult
    private func purge(_ asset: LibraryAsset) async throws -> Bool {
        guard try await assets.purge(asset, now: clock.now, instance: pendingWrites.instance) else { return false }
        await feed.changed(asset.userID)
        try await pendingWrites.abandon(.all(user: asset.userID, asset: asset.id))
        return true
    }

    /// LIB-2: an edited version replaces the asset's file — same id, next file revision, new derivatives.
    package func replace(_ id: String, for user: User, body: RequestBody, declaredLength: Int64?) async throws -> LibraryAsset {
        let asset = try await asset(id, for: user)
        guard asset.trashedAt == nil else {
            throw Problem.conflict("asset-in-trash", "This asset is in the trash: restore it before replacing it.")
        }
        let staged = try await ingest.stage(body, declaredLength: declaredLength, under: policy)
        defer { staged.discard() }
        return try await replace(asset, with: staged, for: user)
    }

    /// The same with the new bytes staged already (a WebDAV client writing over a path).
    package func replace(_ asset: LibraryAsset, with staged: StagedUpload, for user: User) async throws -> LibraryAsset {
        let format = try await ingest.identify(staged, under: policy).format
        if staged.sha256 == asset.sha256 { return asset }  // nothing changed
        if let other = try await assets.find(userID: user.id, sha256: staged.sha256) { throw Problem.alreadyInLibrary(other) }
        let motion = try await embeddedMotion(staged, format: format)
        let files = LibraryFiles.revision(user: user.id, asset: asset.id, fileRevision: asset.fileRevision + 1)
        let write = Ingest.PendingWrite.libraryRevision(files)
        try await ingest.store(staged, key: files.original, as: write)
        let outcome: LibraryRepository.ReplaceOutcome
        do {
            outcome = try await assets.replace(
                asset, sha256: staged.sha256, format: format, byteSize: staged.byteSize, motion: motion, now: clock.now,
                instance: pendingWrites.instance)
        } catch {
            try? await ingest.abandon(write)
            throw error
        }
        switch outcome {
        case .replaced(let replaced):
            // The old revision's files: recorded as pending removal in the transaction, removed now.
            try? await pendingWrites.abandon(asset.files)
            await newWork.notify(.library)
            await feed.changed(user.id)
            return replaced
        case .quotaExceeded:
            try await ingest.abandon(write)
            throw try await quotaExceeded(user.id)
        case .conflict:
            try await ingest.abandon(write)
            throw Problem.conflict("already-exists", "Media already exists: another asset of your library has exactly these bytes.")
        case .gone:
            try await ingest.abandon(write)
            throw Problem.conflict("asset-changed", "This asset was changed or deleted meanwhile. Reload it and try again.")
        }
    }
}
