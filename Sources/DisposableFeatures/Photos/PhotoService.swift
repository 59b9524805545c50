import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import Logging
import NIOPosix

/// Photos (UP-1..7, GAL-3, ORG-3, ORG-4, DL-1, MED-2): the shutter, who may see or change a photo, deleting,
/// approving, and originals as served. Controllers only parse, ask here, and render.
package struct PhotoService: Sendable {
    let photos: PhotoRepository
    package let events: EventService
    package let joining: JoinService
    package let blobs: any BlobStore
    /// Originals served to others lose their location (MED-2).
    package let redactions: LocationRedactions
    /// Files come in through it (`ingestPolicy(for:)` says what an event takes).
    package let ingest: Ingest
    /// A deleted photo's files go as an abandoned write's do (and after a crash, through its reconciliation).
    package let pendingWrites: PendingWrites
    package let signer: MediaSigner
    package let pictures: ShooterPictures
    package let changes: ChangeHub
    /// Wakes the media workers as soon as a photo is stored.
    package let newWork: WorkSignal
    package let clock: any AppClock
    package let limits: UploadLimits
    /// Comments and likes on the posts (SOC-2): whether a caller likes one, and taking a person's back.
    let likes: GuestbookRepository

    init(
        photos: PhotoRepository, events: EventService, joining: JoinService, blobs: any BlobStore, redactions: LocationRedactions, ingest: Ingest,
        pendingWrites: PendingWrites, signer: MediaSigner, pictures: ShooterPictures, changes: ChangeHub, newWork: WorkSignal, clock: any AppClock,
        limits: UploadLimits, likes: GuestbookRepository
    ) {
        self.photos = photos
        self.events = events
        self.joining = joining
        self.blobs = blobs
        self.redactions = redactions
        self.ingest = ingest
        self.pendingWrites = pendingWrites
        self.signer = signer
        self.pictures = pictures
        self.changes = changes
        self.newWork = newWork
        self.clock = clock
        self.limits = limits
        self.likes = likes
    }

    package struct UploadLimits: Sendable {
        package let maxBytes: Int64
        package let maxPixels: Int
        /// A video's largest file, where the event takes videos.
        package var maxVideoBytes: Int64 = 1 << 30
    }

    /// A photo as one caller may see it.
    package struct Grant: Sendable {
        package let photo: Photo
        package let event: Event
        package let role: EventRole
        package let visibility: PhotoVisibility
        /// The caller's uploader id in this event (guest id, or user id for the organizer).
        package var viewerID: String { visibility.viewerID }
        package var isOwner: Bool { photo.uploaderID == viewerID }
    }

    package static let notFound = Problem.notFound("There is no photo with this id, or you cannot see it.")

    /// Signed thumbnail and preview links for a response made now.
    package var mediaLinks: MediaLinks? { signer.links(now: clock.now) }

    /// Records a post that has no file (a guestbook note), under the same shot, post and approval rules as a photo.
    func insert(_ post: PhotoRepository.NewPhoto, by uploader: PhotoRepository.Uploader) async throws -> PhotoRepository.InsertOutcome {
        try await photos.insert(post, by: uploader)
    }

    /// A page of one kind of post (`.note` for the guestbook) as `visibility` allows.
    package func page(
        eventID: String, kind: PostKind, visibleTo visibility: PhotoVisibility, after cursor: GalleryCursor?, limit: Int
    ) async throws -> (items: [Photo], next: GalleryCursor?) {
        try await photos.page(eventID: eventID, .gallery(visibility), kind: kind, order: .uploaded, after: cursor, limit: limit)
    }

    package func json(_ photo: Photo, viewerID: String?) async throws -> PhotoJSON {
        var liked: Bool? = nil
        if let viewerID { liked = photo.likeCount > 0 ? try await likes.liked(by: viewerID, among: [photo.id]).contains(photo.id) : false }
        return PhotoJSON(photo, viewerID: viewerID, links: mediaLinks, pictures: try await pictures.inEvent(photo.eventID), likedByMe: liked)
    }

    // MARK: Who sees a photo

    /// The photo if the caller may see it now (`PhotoVisibility`); 404 otherwise.
    /// The photo an uploader's idempotency key made, if any (a retried upload gets it back).
    package func photo(uploaderID: String, idempotencyKey: String) async throws -> Photo? {
        try await photos.find(uploaderID: uploaderID, idempotencyKey: idempotencyKey)
    }

    package func photo(_ id: String, for identity: Identity?) async throws -> Grant {
        guard let identity else { throw Problem.unauthorized }
        guard let photo = try await photos.find(id: id) else { throw Self.notFound }
        let (event, role): (Event, EventRole)
        do {
            (event, role) = try await events.event(photo.eventID, for: identity)
        } catch let problem as Problem where problem.status == .notFound {
            throw Self.notFound
        }
        let viewerID = try await events.viewerID(in: event, role: role, identity: identity)
        let visibility = PhotoVisibility(event: event, role: role, viewerID: viewerID, now: clock.now)
        guard visibility.canSee(photo) else { throw Self.notFound }
        return Grant(photo: photo, event: event, role: role, visibility: visibility)
    }

    /// Deleting: the shooter, or the event's organizer (GAL-3, ORG-3). Not recoverable.
    package func delete(_ id: String, for identity: Identity?) async throws {
        let grant = try await photo(id, for: identity)
        guard EventAccess(grant.role).mayDelete(photoBy: grant.photo.uploaderID, viewerID: grant.viewerID) else {
            throw Problem(
                .forbidden, "not-your-photo", title: "Not your photo",
                detail: "Only the person who took this photo, or the event's organizer, can delete it.")
        }
        try await photos.delete(grant.photo, now: clock.now)
        try await pendingWrites.abandon(eventID: grant.photo.eventID, photoID: grant.photo.id)
        await changes.refresh(grant.photo.eventID)
    }

    /// ORG-3: every photo one person took in an event, gone (the organizer removing a guest with their photos).
    /// Each goes as a single deletion does: row, change entry, then its files. Returns how many.
    package func deleteAll(by uploaderID: String, in event: Event) async throws -> Int {
        let theirs = try await photos.all(eventID: event.id).filter { $0.uploaderID == uploaderID }
        for photo in theirs {
            try await photos.delete(photo, now: clock.now)
            try await pendingWrites.abandon(eventID: event.id, photoID: photo.id)
        }
        await changes.refresh(event.id)
        return theirs.count
    }

    /// ORG-4: the organizer lets a guest's photo into the gallery. Refusing one is deleting it.
    package func approve(_ id: String, for identity: Identity?) async throws -> PhotoJSON {
        let grant = try await photo(id, for: identity)
        try EventAccess(grant.role).requireOrganizer(
            Problem(.forbidden, "organizer-only", title: "Organizer only", detail: "Only the organizer of this event can approve photos."))
        let approved = try await photos.approve(grant.photo.id, now: clock.now)
        await changes.refresh(grant.photo.eventID)
        return try await json(approved ?? grant.photo, viewerID: grant.viewerID)
    }

    /// The longest caption (SOC-1): a line under a photo, not a letter.
    package static let maxCaption = 300

    /// SOC-1: the photo's shooter captions it (or removes the caption with nil or blanks); everyone who sees the
    /// photo sees the caption, live. Control characters and line breaks are refused; the text is kept as typed and
    /// escaped wherever it is shown.
    package func setCaption(_ raw: String?, of id: String, for identity: Identity?) async throws -> PhotoJSON {
        let grant = try await photo(id, for: identity)
        guard grant.isOwner else {
            throw Problem(.forbidden, "shooter-only", title: "Not your photo", detail: "Only the person who took this photo can caption it.")
        }
        guard grant.photo.kind != .note else {
            throw Problem.invalidField("caption", "A note is its own words: it has no caption.")
        }
        let blank = raw?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true
        let caption = try raw.flatMap {
            blank ? nil : try Guestbook.text($0, field: "caption", max: Self.maxCaption, lines: false, what: "a caption")
        }
        let changed = try await photos.setCaption(grant.photo.id, caption, now: clock.now)
        await changes.refresh(grant.photo.eventID)
        return try await json(changed ?? grant.photo, viewerID: grant.viewerID)
    }

    /// The original as this caller gets it: GPS removed for anyone but the shooter (MED-2); 403 when the
    /// organizer turned downloads off.
    /// `saving`: the person is saving it (a download link), not looking at it: counted in the organizers' numbers.
    package func original(_ id: String, for identity: Identity?, saving: Bool = false) async throws -> (Grant, OriginalSource) {
        let grant = try await photo(id, for: identity)
        guard grant.visibility.mayDownloadOriginal(of: grant.photo, in: grant.event) else { throw Problem.downloadsDisabled }
        guard grant.photo.status != .failed else { throw Problem.notReady(.failed) }
        guard grant.photo.hasFile else { throw Problem.notFound("A note is words only: it has no file to download.") }
        if saving { try await events.countDownload(eventID: grant.event.id, .original) }
        return (grant, OriginalSource(blobs: blobs, photo: grant.photo, redactions: grant.isOwner ? nil : redactions))
    }

    /// Which of these SHA-256 the event already has, so a client skips sending them (UP-7) — among the photos
    /// the caller may see: the check tells no more than the gallery does.
    package func check(hashes raw: [String], inEvent eventID: String, for identity: Identity) async throws -> HashCheckResult {
        let (event, role) = try await events.event(eventID, for: identity)
        guard raw.count <= 1000 else { throw Problem.invalidField("sha256", "Ask about at most 1000 hashes at a time.") }
        let hashes = raw.map { $0.lowercased() }
        guard hashes.allSatisfy({ $0.count == 64 && $0.allSatisfy(\.isHexDigit) }) else {
            throw Problem.invalidField("sha256", "Each sha256 must be 64 hexadecimal characters.")
        }
        let viewerID = try await events.viewerID(in: event, role: role, identity: identity)
        let visibility = PhotoVisibility(event: event, role: role, viewerID: viewerID, now: clock.now)
        let existing = try await photos.existingHashes(eventID: event.id, among: hashes, visibleTo: visibility)
        return HashCheckResult(existing: hashes.filter(existing.contains), missing: hashes.filter { !existing.contains($0) })
    }
}

extension Problem {
    package static let downloadsDisabled = Problem(
        .forbidden, "downloads-disabled", title: "Downloads disabled",
        detail: "The organizer has turned off downloading photos in this event.")

    package static func notReady(_ status: PhotoStatus) -> Problem {
        status == .failed
            ? Problem(
                .gone, "photo-failed", title: "Photo could not be processed",
                detail: "This file could not be read as an image, so it was not kept.")
            : Problem(
                .conflict, "photo-processing", title: "Still developing",
                detail: "This photo is still being processed. It will be ready in a moment.")
    }
}
