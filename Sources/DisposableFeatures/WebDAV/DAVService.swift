import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore

/// The library as a WebDAV tree (RFC 4918 class 1): folders clients make, photos and videos kept as library assets
/// at the paths clients put them (the same bytes stored once, however many names point at them), and plain files
/// beside them (a phone app's `.nomedia`, Finder's `._*`), counted against the quota but never in the timeline.
/// Deleting a path puts its asset in the trash once no other path shows it.
package struct DAVService: Sendable {
    let entries: DAVRepository
    package let library: LibraryService
    package let ingest: Ingest
    package let blobs: any BlobStore
    package let pendingWrites: PendingWrites
    package let clock: any AppClock

    init(entries: DAVRepository, library: LibraryService, ingest: Ingest, blobs: any BlobStore, pendingWrites: PendingWrites, clock: any AppClock) {
        self.entries = entries
        self.library = library
        self.ingest = ingest
        self.blobs = blobs
        self.pendingWrites = pendingWrites
        self.clock = clock
    }

    /// A folder lists at most this many members.
    package static let maxMembers = 20_000

    /// At start: names kept decomposed before the tree composed them are renamed, so they are found again.
    package func composeNames() async throws -> (renamed: Int, kept: Int) { try await entries.composeNames() }

    // MARK: Reading

    /// What is at `path`; nil when nothing is.
    package func entry(_ path: String, for user: User) async throws -> DAVEntry? {
        path.isEmpty ? DAVEntry.libraryRoot(at: user.createdAt) : try await entries.entry(userID: user.id, path: path)
    }

    package func members(of folder: String, for user: User) async throws -> [DAVEntry] {
        try await entries.children(userID: user.id, of: folder, limit: Self.maxMembers)
    }

    /// Where a file's bytes are, to be served whole or by range.
    package struct Content: Sendable {
        package let key: String
        package let byteSize: Int64
        package let etag: String
        package let contentType: String
        /// A plain file: served as an attachment only, never as a page.
        package let isPlainFile: Bool

        package init(key: String, byteSize: Int64, etag: String, contentType: String, isPlainFile: Bool) {
            self.key = key
            self.byteSize = byteSize
            self.etag = etag
            self.contentType = contentType
            self.isPlainFile = isPlainFile
        }
    }

    package func content(of entry: DAVEntry, for user: User) async throws -> Content {
        switch entry.kind {
        case .folder:
            throw Problem(.methodNotAllowed, "dav-folder", title: "A folder", detail: "This is a folder: list it with PROPFIND.")
        case .asset:
            let asset = try await library.asset(entry.assetID ?? "", for: user)
            return Content(
                key: asset.files.original, byteSize: asset.byteSize, etag: "\"\(asset.sha256)\"", contentType: asset.format.mimeType,
                isPlainFile: false)
        case .file:
            return Content(
                key: DAVEntry.fileKey(entry.filePrefix ?? ""), byteSize: entry.byteSize, etag: entry.etag,
                contentType: "application/octet-stream", isPlainFile: true)
        }
    }

    // MARK: Writing

    /// PUT: the body kept at `path` — an asset when it is a photo or video, a plain file otherwise; true when the path
    /// is new. Answers once the bytes are durable and recorded.
    package func put(_ path: String, body: RequestBody, declaredLength: Int64?, for user: User) async throws -> Bool {
        guard !path.isEmpty else { throw Self.notHere }
        try await requireFolder(LibraryPath.parent(path), for: user)
        let existing = try await entries.entry(userID: user.id, path: path)
        if existing?.isFolder == true {
            throw Problem(.methodNotAllowed, "dav-folder", title: "A folder", detail: "A folder is at this path; a file cannot replace it.")
        }
        try await library.checkQuota(of: user.id, adding: declaredLength ?? 1)
        // A body without a length (chunked) is stopped where the quota ends, not at the largest file's size.
        let (library, userID) = (library, user.id)
        let replaced = existing?.kind == .file ? existing?.byteSize ?? 0 : 0
        let staged = try await ingest.stage(
            body, declaredLength: declaredLength, under: library.policy, room: try await library.quotaRoom(of: user.id).map { $0 + replaced },
            overQuota: { try await library.quotaExceeded(userID) })
        defer { staged.discard() }
        let now = clock.now
        var entry: DAVEntry
        var endingWrite: LibraryFiles? = nil
        if library.looksLikeMedia(staged) {
            let asset = try await asset(for: staged, replacing: existing, name: LibraryPath.name(path), user: user)
            entry = DAVEntry(
                path: path, kind: .asset, assetID: asset.id, filePrefix: nil, byteSize: asset.byteSize, etag: "\"\(asset.sha256)\"",
                contentType: nil, createdAt: existing?.createdAt ?? now, modifiedAt: now, properties: existing?.properties ?? [])
        } else {
            let prefix = "library/\(user.id)/files/\(newID())/"
            let files = DAVRepository.files(prefix)
            try await ingest.store(staged, key: DAVEntry.fileKey(prefix), as: .libraryRevision(files))
            endingWrite = files
            entry = DAVEntry(
                path: path, kind: .file, assetID: nil, filePrefix: prefix, byteSize: staged.byteSize, etag: "\"\(staged.sha256)\"",
                contentType: nil, createdAt: existing?.createdAt ?? now, modifiedAt: now, properties: existing?.properties ?? [])
        }
        switch try await entries.put(entry, userID: user.id, replacing: existing != nil, endingWrite: endingWrite, instance: pendingWrites.instance) {
        case .done(let replaced):
            try await cleanUp(replaced, keeping: entry.assetID, for: user)
            return existing == nil
        case .quotaExceeded:
            if let endingWrite { try? await pendingWrites.abandon(endingWrite) }
            throw try await library.quotaExceeded(user.id)
        }
    }

    /// The asset a photo or video put over `existing` becomes: the same asset's next revision when only this path
    /// showed it (an edit saved over the file), else the library's asset of these bytes, kept now if new.
    private func asset(for staged: StagedUpload, replacing existing: DAVEntry?, name: String, user: User) async throws -> LibraryAsset {
        if let existing, existing.kind == .asset, let id = existing.assetID, try await entries.placements(assetID: id) == 1 {
            let old = try await library.asset(id, for: user)
            if old.trashedAt == nil {
                do {
                    return try await library.replace(old, with: staged, for: user)
                } catch let problem as Problem where problem.slug == "already-exists" {
                    // These bytes are another asset already: the path shows that one, and the old goes to the trash.
                }
            }
        }
        return try await library.keep(staged, fileName: name, for: user)
    }

    /// MKCOL: a new folder; 405 when something is there, 409 without its parent.
    package func makeFolder(_ path: String, for user: User) async throws {
        guard !path.isEmpty else { throw Problem(.methodNotAllowed, "dav-exists", title: "Exists", detail: "The library exists.") }
        if try await entries.entry(userID: user.id, path: path) != nil {
            throw Problem(.methodNotAllowed, "dav-exists", title: "Exists", detail: "Something is at this path already.")
        }
        try await requireFolder(LibraryPath.parent(path), for: user)
        let now = clock.now
        let folder = DAVEntry(
            path: path, kind: .folder, assetID: nil, filePrefix: nil, byteSize: 0, etag: "\"\(newID())\"", contentType: nil, createdAt: now,
            modifiedAt: now, properties: [])
        _ = try await entries.put(folder, userID: user.id, replacing: false, endingWrite: nil, instance: pendingWrites.instance)
    }

    /// DELETE: the path and all below it; assets no path shows any more go to the trash (restorable on the web).
    package func delete(_ path: String, for user: User) async throws {
        guard !path.isEmpty else { throw Self.notHere }
        guard try await entries.entry(userID: user.id, path: path) != nil else { throw Self.nothingHere }
        try await cleanUp(try await entries.remove(userID: user.id, at: path, instance: pendingWrites.instance), keeping: nil, for: user)
    }

    /// After entries went: plain files' bytes removed, assets no longer shown anywhere trashed.
    package func cleanUp(_ gone: [DAVEntry], keeping kept: String?, for user: User) async throws {
        for entry in gone {
            switch entry.kind {
            case .folder: continue
            case .file:
                if let prefix = entry.filePrefix { try? await pendingWrites.abandon(DAVRepository.files(prefix)) }
            case .asset:
                guard let id = entry.assetID, id != kept, try await entries.placements(assetID: id) == 0 else { continue }
                try? await library.trash(id, for: user)
            }
        }
    }

    package func requireFolder(_ path: String, for user: User) async throws {
        if path.isEmpty { return }
        guard try await entries.entry(userID: user.id, path: path)?.isFolder == true else {
            throw Problem(.conflict, "dav-no-parent", title: "No such folder", detail: "The folder this goes into does not exist: make it first.")
        }
    }

    package static let notHere = Problem(.forbidden, "dav-read-only", title: "Not here", detail: "Nothing can be written at this address.")
    package static let nothingHere = Problem.notFound("Nothing is at this path.")
}
