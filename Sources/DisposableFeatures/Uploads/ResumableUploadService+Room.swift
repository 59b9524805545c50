import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import NIOPosix
import SQLKit

/// The room an unfinished upload takes: a place among its sender's unfinished uploads, its announced length on an
/// account's quota, and bytes on the server's staging disk — counted by what it *holds* (what it received plus a
/// bounded allowance until its first bytes, raised while a PATCH streams), never by what it announced, and capped per
/// sender, per network and per event — and within an event, a network takes at most half of what the others leave —
/// so that one guest's or one network's announcements cannot refuse everyone else's uploads.
extension ResumableUploadService {
    /// What an upload may hold beyond what it received before a PATCH asks for more.
    package static let allowance: Int64 = 16 << 20
    /// An upload no PATCH began this long after its creation is given up (its shot back, its room free).
    package static let idleLimit: TimeInterval = 300

    /// Before a new upload: the same file begun again (a client that crashed before it remembered where its upload
    /// was) gives way, with its held shot, rather than holding it for a day.
    package func makeRoom(uploaderID: String, idempotencyKey key: String?) async throws {
        if let key, let previous = try await unfinished(uploaderID: uploaderID, idempotencyKey: key) {
            await locks.stopHolder(previous.id)
            try await end(previous)
        }
    }

    /// What a new upload asks for.
    package struct Room: Sendable {
        package let uploaderID: String
        package let accountID: String
        /// The event it goes to; empty for a library.
        package let eventID: String
        /// The sender's network (`IPAddress.network`).
        package let network: String
        package let length: Int64
    }

    /// What unfinished uploads may hold on the staging disk at once: all of them (`--max-staged-gb`), one sender's,
    /// one network's, one event's. A sender may always hold one file of the largest size taken (up to a quarter of
    /// the whole).
    package struct StagingCaps: Sendable {
        package let instance: Int64
        package let sender: Int64
        package let network: Int64
        package let event: Int64

        package init(maxStaged: Int64, largestFile: Int64) {
            instance = maxStaged
            sender = max(maxStaged / 10, min(largestFile + ResumableUploadService.allowance, maxStaged / 4))
            network = max(maxStaged / 5, sender)
            event = max(maxStaged / 4, sender)
        }
    }

    package var caps: StagingCaps { StagingCaps(maxStaged: maxStagedBytes, largestFile: maxBytes) }

    /// Admits a new upload in the transaction that inserts it: a sender has at most 20 under way; the announced
    /// lengths of an account's unfinished uploads count against its quota as if stored (uploads left one byte short
    /// cannot hold more than the quota); its first allowance must fit every staging cap. On PostgreSQL the
    /// admissions take turns (an advisory lock), so parallel creations cannot all see the same free room.
    package func admit(_ room: Room, byOrganizer: Bool, now: Date, in db: any SQLDatabase) async throws {
        try await rows.takeTurn(in: db)
        let live = ResumableUploadRepository.live(now, idle: Self.idleLimit)
        let unfinished = try await ResumableUploadRepository.unfinishedCount(uploaderID: room.uploaderID, live: live, in: db)
        guard unfinished < Self.maxUnfinished else {
            throw Problem(
                .forbidden, "too-many-uploads", title: "Too many uploads under way",
                detail: "You have \(unfinished) uploads under way: finish or cancel some before starting another.")
        }
        let announced = try await ResumableUploadRepository.announcedLength(accountID: room.accountID, live: live, in: db)
        if let usage = try await ResumableUploadRepository.usage(accountID: room.accountID, in: db), !usage.fits(announced + room.length) {
            throw Quota.exceeded(Quota.Usage(used: usage.used + announced, allowed: usage.allowed, own: usage.own), byOrganizer: byOrganizer)
        }
        let held = try await ResumableUploadRepository.held(
            besides: nil, uploaderID: room.uploaderID, network: room.network, eventID: room.eventID, live: live, in: db)
        try check(held, adding: min(room.length, Self.allowance), toEvent: !room.eventID.isEmpty)
    }

    /// Before a PATCH's bytes: raises what the upload holds to as much of its length as the caps leave free (in a
    /// transaction that takes turns with admissions); the PATCH may write up to what it then holds.
    package func grant(_ upload: ResumableUpload) async throws -> Int64 {
        let now = clock.now
        let caps = caps
        return try await transactions.transaction { [rows] db in
            try await rows.takeTurn(in: db)
            let others = try await ResumableUploadRepository.held(
                besides: upload.id, uploaderID: upload.uploaderID, network: upload.network, eventID: upload.target == "library" ? "" : upload.placeID,
                live: ResumableUploadRepository.live(now, idle: Self.idleLimit), in: db)
            let free = min(
                caps.instance - others.instance, caps.sender - others.sender, caps.network - others.network, caps.event - others.event,
                upload.target == "library" ? .max : Self.networkShare(in: caps.event, held: others) - others.networkInEvent)
            // Never less than it held already: the caps bound what others may add, not what this one had.
            let held = min(upload.length, max(upload.held, free))
            try await ResumableUploadRepository.setHeld(
                upload.id, held: held, now: now, expiresAt: Self.expiry(createdAt: upload.createdAt, now: now), in: db)
            return held
        }
    }

    private func check(_ held: ResumableUploadRepository.Held, adding bytes: Int64, toEvent: Bool) throws {
        let caps = caps
        guard held.instance + bytes <= caps.instance else { throw Self.stagingFull }
        guard held.sender + bytes <= caps.sender, held.network + bytes <= caps.network, held.event + bytes <= caps.event,
            !toEvent || held.networkInEvent + bytes <= Self.networkShare(in: caps.event, held: held)
        else {
            throw Self.ownShareFull
        }
    }

    /// What one network may hold of an event's room: half of what the other networks leave. However many networks
    /// (or guests behind them) announce uploads, the last half of the free room stays for a network that has none.
    static func networkShare(in eventRoom: Int64, held: ResumableUploadRepository.Held) -> Int64 {
        (eventRoom - (held.event - held.networkInEvent)) / 2
    }

    package static let stagingFull = Problem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), "staging-full", title: "Server busy",
        detail: "The server is receiving too many large uploads right now. Try again later; nothing was kept.")

    package static let ownShareFull = Problem(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), "staging-full", title: "Too much under way",
        detail: "Too many large uploads from you, your network or this event are under way: let some finish, then try again.")

    /// The upload's empty file, durably, before its row: a row never points at a file that cannot be.
    package func createFile(_ id: String) async throws -> String {
        let path = file(id).path
        try await NIOThreadPool.singleton.runIfActive {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try DurableFiles.check(fd, "open upload file")
            close(fd)
            try DurableFiles.syncDirectory(of: path)
        }
        return path
    }
}
