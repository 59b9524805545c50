import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import NIOPosix

/// Resumable uploads (UP-4, tus 1.0): a file sent in as many requests as the connection needs. Its bytes go to a
/// file of its own, fsynced before each offset is acknowledged; when the last byte is in, its `UploadTarget` makes
/// it a photo or an asset through the same path as a plain upload. A guest's shot is held from the creation
/// (`ResumableUploadRepository.reserveShot`) and given back when the upload is ended, expires or turns out to be
/// there already, so the shot limit (UP-2) stays exact with uploads under way.
package struct ResumableUploadService: Sendable {
    package let transactions: Transactions
    let rows: ResumableUploadRepository
    /// By name (`UploadTarget.name`).
    package let targets: [String: any UploadTarget]
    /// Where a finished file is handed over (the staging folder, beside the store).
    package let staging: UploadStaging
    package let directory: URL
    package let locks: UploadLocks
    package let clock: any AppClock
    /// What unfinished uploads may hold on the staging disk, all senders together.
    package let maxStagedBytes: Int64
    /// Set with the storage key: unfinished uploads' bytes are sealed on disk.
    package let sealing: StagedSealing?
    /// How long an upload may take, from its creation: bytes trickled in never extend it.
    package static let lifetime: TimeInterval = 24 * 3600
    /// An upload that receives nothing this long is given up (its room and shot free again): each PATCH moves its
    /// expiry, within `lifetime`. A phone that slept longer starts the file again.
    package static let stallLimit: TimeInterval = 15 * 60

    /// When an upload that made progress at `now` expires.
    package static func expiry(createdAt: Date, now: Date) -> Date { min(createdAt + lifetime, now + stallLimit) }
    /// Uploads one sender may have under way at once: each holds a file (and maybe a shot) for up to a day.
    package static let maxUnfinished = 20

    package enum Checksum: Sendable {
        case sha1(Data), sha256(Data)

        /// `Upload-Checksum: sha1 BASE64` (or sha256).
        package init?(header: String) throws {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let digest = Data(base64Encoded: String(parts[1])) else {
                throw Problem.badRequest("Upload-Checksum must be an algorithm and a base64 digest.", field: "Upload-Checksum")
            }
            switch parts[0].lowercased() {
            case "sha1": self = .sha1(digest)
            case "sha256": self = .sha256(digest)
            default: throw Problem.badRequest("Upload-Checksum's algorithm must be sha1 or sha256.", field: "Upload-Checksum")
            }
        }
    }

    /// What a PATCH (or a creation with its first bytes) ended with.
    package struct Progress: Sendable {
        package let upload: ResumableUpload
        /// The photo or library asset, once the last byte made one.
        package let made: Made?

        package init(upload: ResumableUpload, made: Made?) {
            self.upload = upload
            self.made = made
        }
    }

    package struct Made: Sendable {
        package let id: String
        /// Its address in the API.
        package let location: String

        package init(id: String, location: String) {
            self.id = id
            self.location = location
        }
    }

    init(
        transactions: Transactions, rows: ResumableUploadRepository, targets: [any UploadTarget], staging: UploadStaging, directory: URL,
        maxStagedBytes: Int64 = 10_000_000_000, storageKey: StorageKey? = nil, clock: any AppClock
    ) throws {
        sealing = storageKey.map(StagedSealing.init)
        self.transactions = transactions
        self.rows = rows
        self.targets = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        self.staging = staging
        self.maxStagedBytes = maxStagedBytes
        self.directory = directory
        self.clock = clock
        locks = UploadLocks()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The largest upload this server takes (a library video's limit, where videos are kept).
    package var maxBytes: Int64 { targets.values.map(\.maxBytes).max() ?? 0 }

    /// `target`: `event:<id>` or `library` (the older `event` key names an event too): the target and the place in it.
    private func target(of metadata: UploadMetadata) throws -> (any UploadTarget, placeID: String) {
        let named = metadata.values["target"] ?? metadata.values["event"].map { "event:" + $0 }
        guard let named else {
            var problem = Problem(
                .unprocessableContent, "upload-target-missing", title: "Where to?",
                detail: "Name where the upload goes in Upload-Metadata: “target” and, in base64, “library” or “event:” and the event's id.")
            problem.extensions["field"] = "Upload-Metadata"
            throw problem
        }
        let (name, placeID) = named.hasPrefix("event:") ? ("event", String(named.dropFirst("event:".count))) : (named, "")
        guard named == "library" || (name == "event" && !placeID.isEmpty) else {
            throw Problem.badRequest("The target in Upload-Metadata must be “library” or “event:” and the event's id.", field: "Upload-Metadata")
        }
        guard let target = targets[name] else { throw Problem.notFound("This server has no libraries.") }
        return (target, placeID)
    }

    // MARK: - Creation

    /// Creates an upload of `length` bytes into what its metadata names (`target`: `event:<id>` or `library`;
    /// `idempotencyKey`, `source`, `filename` optional), holding a guest's shot for it.
    package func create(length: Int64, metadataHeader: String?, for identity: Identity?, client: String) async throws -> ResumableUpload {
        let metadata = try UploadMetadata(header: metadataHeader)
        let (target, placeID) = try target(of: metadata)
        let key = metadata.values["idempotencyKey"]
        if let key, !(1...128).contains(key.utf8.count) || !key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw Problem.badRequest("The idempotencyKey in Upload-Metadata must be 1 to 128 visible ASCII characters.", field: "Upload-Metadata")
        }
        let admission = try await target.admit(length: length, placeID: placeID, metadata: metadata, for: identity)
        try await makeRoom(uploaderID: admission.uploaderID, idempotencyKey: key)
        let id = newID()
        let now = clock.now
        let path = try await createFile(id)
        let network = IPAddress.network(client)
        let room = Room(
            uploaderID: admission.uploaderID, accountID: admission.accountID, eventID: target.name == "library" ? "" : placeID, network: network,
            length: length)
        do {
            let row = ResumableUploadRepository.NewUpload(
                id: id, placeID: placeID, uploaderID: admission.uploaderID, guestID: admission.heldShot?.guestID, length: length,
                idempotencyKey: key, source: admission.source.rawValue, metadata: metadataHeader ?? "", createdAt: now,
                expiresAt: Self.expiry(createdAt: now, now: now), target: target.name, held: min(length, Self.allowance), network: network)
            try await transactions.transaction { db in
                try await admit(room, byOrganizer: admission.byOrganizer, now: now, in: db)
                if let (guestID, shots) = admission.heldShot {
                    guard try await ResumableUploadRepository.reserveShot(guestID: guestID, shotsPerGuest: shots, in: db) else {
                        throw ShotLimit.reached(shots)
                    }
                }
                try await ResumableUploadRepository.insert(row, in: db)
            }
        } catch {
            unlink(path)
            throw error
        }
        return try await find(id)!
    }

    /// What a finished upload became, and where it lives in the API.
    package func made(_ upload: ResumableUpload) -> Made? {
        guard let id = upload.photoID, let target = targets[upload.target] else { return nil }
        return Made(id: id, location: target.location(of: id))
    }

    // MARK: - Reading where it stands

    /// The caller's upload, after stopping a PATCH that may still hold it (HEAD).
    package func current(_ id: String, for identity: Identity?) async throws -> ResumableUpload {
        let (upload, _) = try await owned(id, by: identity)
        await locks.stopHolder(id)
        return try await find(id) ?? upload
    }

    // MARK: - Finishing

    /// The last byte is in: the file becomes what its target makes of it, like a plain upload's body would; the
    /// held shot is the photo's, or given back when it was there already. Refused (not a photo, a duplicate, over
    /// quota), the upload is over and its shot given back.
    package func finish(_ upload: ResumableUpload, _ destination: Destination) async throws -> Progress {
        let done: UploadFinish
        do {
            done = try await destination.target.finish(upload, as: destination.identity, firstLook: firstLook(of: upload.id)) {
                try await stage(upload)
            }
        } catch {
            try await end(upload)
            throw error
        }
        if done.existed, let guestID = upload.guestID {
            try await rows.releaseShot(guestID: guestID)
        }
        return try await finished(upload, as: Made(id: done.madeID, location: destination.target.location(of: done.madeID)))
    }

    /// Records what the upload became and removes its bytes.
    package func finished(_ upload: ResumableUpload, as made: Made) async throws -> Progress {
        try await rows.markFinished(upload.id, madeID: made.id)
        unlink(file(upload.id).path)
        unlink(firstLookFile(upload.id).path)
        return Progress(upload: try await find(upload.id) ?? upload, made: made)
    }

    // MARK: - Ending

    /// Termination (DELETE): the bytes are removed and the held shot given back.
    package func terminate(_ id: String, for identity: Identity?) async throws {
        let (upload, _) = try await owned(id, by: identity)
        await locks.stopHolder(id)
        try await end(upload)
    }

    package func end(_ upload: ResumableUpload) async throws {
        try await rows.remove(upload.id)
        unlink(file(upload.id).path)
        unlink(firstLookFile(upload.id).path)
    }

    /// Drops uploads that waited past their expiry or were left empty (their shots given back), and finished ones
    /// kept for a late HEAD.
    @discardableResult
    package func sweep() async throws -> Int {
        let now = clock.now
        let due = try await rows.due(now: now, idleSince: now - Self.idleLimit)
        for upload in due { try await end(upload) }
        return due.count
    }

    // MARK: - Helpers

    package func find(_ id: String) async throws -> ResumableUpload? {
        try await rows.find(id)
    }

    package func unfinished(uploaderID: String, idempotencyKey: String) async throws -> ResumableUpload? {
        try await rows.unfinished(uploaderID: uploaderID, idempotencyKey: idempotencyKey)
    }

    /// The upload, when it is the caller's and not expired; 404 otherwise (others learn nothing of it).
    package func owned(_ id: String, by identity: Identity?) async throws -> (ResumableUpload, Destination) {
        guard let identity else { throw Problem.unauthorized }
        guard let upload = try await find(id), upload.expiresAt > clock.now, !upload.isAbandoned(at: clock.now), let target = targets[upload.target],
            await target.mayContinue(upload, as: identity)
        else { throw Problem.uploadGone }
        return (upload, Destination(target: target, identity: identity))
    }

    /// An upload's target, and who goes on with it.
    package struct Destination: Sendable {
        package let target: any UploadTarget
        package let identity: Identity

        package init(target: any UploadTarget, identity: Identity) {
            self.target = target
            self.identity = identity
        }
    }

    package func file(_ id: String) -> URL { directory.appendingPathComponent(id) }
}

extension Problem {
    package static let uploadGone = Problem(
        .notFound, "upload-not-found", title: "No such upload",
        detail:
            "This upload does not exist, or it expired (a day after it began, or minutes after its last bytes). Start it again from the beginning."
    )
}
