import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

/// The shutter (UP-1, UP-2, UP-5, UP-6). The path is short on purpose: accept, store durably, record,
/// enqueue, answer. Derivatives are a job (`PhotoRenderer`).
extension PhotoService {
    /// Who shoots into which event: checked before the request's headers are even read.
    package struct Shooting: Sendable {
        package let event: Event
        let uploader: PhotoRepository.Uploader
    }

    /// What the controller read from the request besides its body.
    package struct UploadRequest: Sendable {
        package let source: PhotoSource
        /// A client-generated id (UP-3): a retry with it gets the same photo back, never a second shot.
        package let idempotencyKey: String?
        package let declaredLength: Int64?

        package init(source: PhotoSource, idempotencyKey: String?, declaredLength: Int64?) {
            self.source = source
            self.idempotencyKey = idempotencyKey
            self.declaredLength = declaredLength
        }
    }

    package enum Uploaded: Sendable {
        case created(PhotoJSON)
        /// The same idempotency key was sent before: the photo it made.
        case existing(PhotoJSON)
    }

    /// The caller may shoot into this event now: a member, while the event is live.
    package func shooting(into eventID: String, for identity: Identity?) async throws -> Shooting {
        guard let identity else { throw Problem.unauthorized }
        let (event, role) = try await events.event(eventID, for: identity)
        let uploader = try await uploader(event: event, role: role, identity: identity)
        guard event.status(at: clock.now) == .live else {
            throw Problem(
                .forbidden, "event-not-live", title: "Not shooting now",
                detail: "Photos can only be taken while the event is live, between its start and its end.")
        }
        return Shooting(event: event, uploader: uploader)
    }

    package func upload(_ request: UploadRequest, _ shooting: Shooting, body: some PhotoBody) async throws -> Uploaded {
        let (event, uploader) = (shooting.event, shooting.uploader)
        try checkSource(request.source, shooting)
        if let key = request.idempotencyKey, let existing = try await photos.find(uploaderID: uploader.id, idempotencyKey: key) {
            return .existing(try await json(existing, viewerID: uploader.id))
        }
        if case .guest(let guest, let shots) = uploader, takesShot(request.source, in: event) {
            try ShotLimit.check(guest, shotsPerGuest: shots)
        }
        let policy = ingestPolicy(for: event)
        try ingest.admit(declaredLength: request.declaredLength, under: policy)
        try await checkQuota(of: event, uploader: uploader, adding: request.declaredLength ?? 1)
        let staged = try await ingest.stage(body, declaredLength: request.declaredLength, under: policy)
        defer { staged.discard() }
        return try await record(staged, request, shooting, shotReserved: false, firstLook: body.firstLook)
    }

    /// The rest of the shutter once the bytes are whole on disk — a plain upload's body, or a resumable upload
    /// finished (`shotReserved`: it has held the guest's shot since it began): check, store, record, enqueue.
    /// With the phone's `firstLook` (`FirstLook`), the photo is shown to everyone at once.
    package func record(
        _ staged: StagedUpload, _ request: UploadRequest, _ shooting: Shooting, shotReserved: Bool, firstLook jpeg: Data? = nil
    ) async throws -> Uploaded {
        let (event, uploader) = (shooting.event, shooting.uploader)
        let checking = ContinuousClock.now
        let identified = try await ingest.identify(staged, under: ingestPolicy(for: event))
        var firstLook: FirstLook? = nil
        if let jpeg {
            guard let header = identified.header else { throw Problem.firstLookOnlyForPhotos }
            do {
                firstLook = try await FirstLook.check(jpeg, for: header, images: ingest.images)
            } catch let refusal as FirstLookRefusal {
                throw Problem.firstLookRefused(refusal.reason)
            }
        }
        // The same bytes in the event already are found by the insert (a unique index): asking first cost every upload a
        // query for what a few retries meet.
        Metric.ingest(.check, since: checking)

        let photoID = newID()
        let write = Ingest.PendingWrite.eventPhoto(eventID: event.id, photoID: photoID)
        try await ingest.store(staged, key: BlobKey.original(event.id, photoID), as: write)
        var new = PhotoRepository.NewPhoto(
            id: photoID, eventID: event.id, idempotencyKey: request.idempotencyKey, sha256: staged.sha256, format: identified.format,
            source: request.source, byteSize: staged.byteSize, uploadedAt: clock.now)
        if event.requireApproval, case .guest = uploader { new.approved = false }
        new.eventHadPhotos = event.hasPhotos
        if let firstLook, let header = identified.header, try await showsFirstLook(of: uploader, in: event, approved: new.approved) {
            try await ingest.store(firstLook.image.jpeg, key: BlobKey.firstLook(event.id, photoID), beside: write)
            let shown = header.displayed
            new.firstLook = .init(
                width: shown.width, height: shown.height, takenAt: header.takenAt?.instant(floatingIn: .gmt) ?? new.uploadedAt,
                bytes: Int64(firstLook.image.jpeg.count), miniature: firstLook.image.miniature)
        }
        if identified.video != nil { new.kind = .video }
        new.shotReserved = shotReserved
        new.takesShot = takesShot(request.source, in: event)
        let recording = ContinuousClock.now
        let outcome: PhotoRepository.InsertOutcome
        do {
            outcome = try await photos.insert(new, by: uploader)
        } catch {
            try? await ingest.abandon(write)
            throw error
        }
        switch outcome {
        case .inserted(let photo, let moved):
            if new.firstLook != nil { Metric.firstLook("shown") }
            if let render = new.render { await newWork.notify(render.priority) }
            await changes.refresh(event.id, moved: moved)
            Metric.ingest(.record, since: recording)
            // Committed: the answer is 201 whatever happens now. Faces beside the photo are a nicety that a database
            // just back from an outage (still marked unreachable for up to a second) must not turn into a 503 that
            // would have the client send again a photo that is kept.
            let faces = (try? await pictures.inEvent(photo.eventID)) ?? [:]
            return .created(PhotoJSON(photo, viewerID: uploader.id, links: mediaLinks, pictures: faces, likedByMe: false))
        case .shotLimitReached:
            try await ingest.abandon(write)
            throw ShotLimit.reached(event.shotsPerGuest)
        case .postLimitReached:
            try await ingest.abandon(write)
            throw Guestbook.postLimitReached
        case .quotaExceeded:
            try await ingest.abandon(write)
            let usage = try await photos.usage(userID: event.organizerID) ?? .init(used: 0, allowed: 0, own: nil)
            throw Quota.exceeded(usage, byOrganizer: uploader.isOrganizer)
        case .conflict:
            // A parallel retry with the same key, or the same content, won the race.
            try await ingest.abandon(write)
            if let key = request.idempotencyKey, let existing = try await photos.find(uploaderID: uploader.id, idempotencyKey: key) {
                return .existing(try await json(existing, viewerID: uploader.id))
            }
            let duplicate = try await photos.find(eventID: event.id, sha256: staged.sha256)
            throw Problem.alreadyExists(duplicate, uploaderID: uploader.id)
        }
    }

    /// Whether a checked first look is shown to everyone until the server's renders exist. Not where the organizer
    /// approves guests' photos (moderation looks at what the server made), nor for a guest one of whose first looks
    /// was another picture than the photo (`PhotoRenderer` found out): their photos wait for the server's thumbnail.
    private func showsFirstLook(of uploader: PhotoRepository.Uploader, in event: Event, approved: Bool) async throws -> Bool {
        guard approved else { return false }
        if case .guest(let guest, _) = uploader { return try await !photos.hasRefutedFirstLook(uploaderID: guest.id) }
        return true
    }

    /// What an event takes in: photos within the server's limits, and videos of at most 30 seconds where the
    /// organizer allows them (SOC-4).
    package func ingestPolicy(for event: Event) -> IngestPolicy {
        IngestPolicy(
            maxImageBytes: limits.maxBytes, maxPixels: limits.maxPixels,
            videos: event.allowVideos ? .accepted(IngestPolicy.eventVideoLimits, maxBytes: limits.maxVideoBytes) : .refused(.videosNotAllowed))
    }

    /// A drawing is a guestbook post (SOC-1): it takes a shot only where the organizer says so.
    package func takesShot(_ source: PhotoSource, in event: Event) -> Bool {
        source != .drawing || event.postsCountAsShots
    }

    /// Guests may send photos from their library only where the organizer allows it.
    package func checkSource(_ source: PhotoSource, _ shooting: Shooting) throws {
        if source == .library, case .guest = shooting.uploader, !shooting.event.allowLibraryUploads {
            throw Problem(
                .forbidden, "library-uploads-disabled", title: "Camera only",
                detail: "The organizer allows only photos taken with the camera in this event.")
        }
    }

    /// Refuses at once when the organizer's quota has no room for `bytes` more (the recording transaction decides).
    func checkQuota(of event: Event, uploader: PhotoRepository.Uploader, adding bytes: Int64) async throws {
        guard let usage = try await photos.usage(userID: event.organizerID), !usage.fits(bytes) else { return }
        throw Quota.exceeded(usage, byOrganizer: uploader.isOrganizer)
    }

    func uploader(event: Event, role: EventRole, identity: Identity) async throws -> PhotoRepository.Uploader {
        switch (identity, role) {
        case (.user(let user, _), .organizer): return .organizer(userID: user.id, name: user.name)
        case (.guest(let guest, _), _): return .guest(guest, shotsPerGuest: event.shotsPerGuest)
        case (.user, .guest):
            guard let guest = try await joining.guest(of: identity, in: event.id) else { throw EventService.notFound }
            return .guest(guest, shotsPerGuest: event.shotsPerGuest)
        }
    }
}

extension Problem {
    /// The same bytes are in the event already. Their id is given only to whoever sent them: another guest's photo
    /// may be hidden from this one (waiting for approval, or for the reveal), and its id would open it.
    package static func alreadyExists(_ duplicate: Photo?, uploaderID: String) -> Problem {
        var problem = Problem(
            .conflict, "already-exists", title: "Media already exists", detail: "Media already exists: this photo is already in the event.")
        if let duplicate, duplicate.uploaderID == uploaderID { problem.extensions["existingId"] = duplicate.id }
        return problem
    }
}

/// A photo's bytes as they arrive, and the phone's first look of it (`FirstLook`), known once they have all arrived.
package protocol PhotoBody: AsyncSequence<ByteBuffer, any Error> {
    var firstLook: Data? { get }
}

/// A raw body: the photo alone.
extension RequestBody: PhotoBody {
    package var firstLook: Data? { nil }
}
