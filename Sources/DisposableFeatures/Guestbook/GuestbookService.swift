import Crypto
import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// The guestbook (SOC-1, SOC-2): notes in the event feed, comments and likes on every post. Who may see a post
/// is the photos' rule (`PhotoService.photo`, `PhotoVisibility`): whoever sees a post may like and comment on it,
/// and nobody else learns it exists.
package struct GuestbookService: Sendable {
    package let photos: PhotoService
    let rows: GuestbookRepository
    package let limiter: RateLimiter
    /// Rings the notification streams on this instance when a like or comment told someone something.
    package let bell: StreamWaker

    init(photos: PhotoService, rows: GuestbookRepository, limiter: RateLimiter, bell: StreamWaker) {
        self.photos = photos
        self.rows = rows
        self.limiter = limiter
        self.bell = bell
    }

    package var clock: any AppClock { photos.clock }

    // MARK: Notes

    /// SOC-1: a guestbook message, posted like a photo while the event is live: in the feed in order with the
    /// photos, developing until the reveal, waiting for approval where the organizer approves photos, and a
    /// shot only where the event says posts count as shots.
    package func postNote(_ input: NoteInput, into eventID: String, for identity: Identity?) async throws -> PhotoJSON {
        let shooting = try await photos.shooting(into: eventID, for: identity)
        try await limit(shooting.uploader.id)
        let text = try Guestbook.text(input.text, field: "text", max: Guestbook.maxNote, lines: true, what: "a note")
        let (event, uploader) = (shooting.event, shooting.uploader)
        if case .guest(let guest, let shots) = uploader, event.postsCountAsShots { try ShotLimit.check(guest, shotsPerGuest: shots) }
        let id = newID()
        var note = PhotoRepository.NewPhoto(
            id: id, eventID: event.id, idempotencyKey: nil, sha256: SHA256.hash(data: Data("note:\(id)".utf8)).hex, format: .image(.jpeg),
            source: .camera, byteSize: 0, uploadedAt: clock.now)
        note.kind = .note
        note.text = text
        note.takesShot = event.postsCountAsShots
        if event.requireApproval, case .guest = uploader { note.approved = false }
        switch try await photos.insert(note, by: uploader) {
        case .inserted(let photo, _):
            await photos.changes.refresh(event.id)
            return try await photos.json(photo, viewerID: uploader.id)
        case .shotLimitReached: throw ShotLimit.reached(event.shotsPerGuest)
        case .postLimitReached: throw Guestbook.postLimitReached
        case .quotaExceeded, .conflict:
            throw Problem(.conflict, "note-not-saved", title: "Not saved", detail: "The note could not be saved; please try again.")
        }
    }

    /// The event's notes the caller may see, newest first.
    package func notes(eventID: String, cursor raw: String?, limit: Int, for identity: Identity?) async throws -> NotePage {
        guard let identity else { throw Problem.unauthorized }
        let (event, role) = try await photos.events.event(eventID, for: identity)
        let viewerID = try await photos.events.viewerID(in: event, role: role, identity: identity)
        let visibility = PhotoVisibility(event: event, role: role, viewerID: viewerID, now: clock.now)
        let page = try await photos.page(eventID: event.id, kind: .note, visibleTo: visibility, after: try cursor(raw), limit: limit)
        let liked = try await rows.liked(by: viewerID, among: page.items.map(\.id))
        let pictures = try await photos.pictures.inEvent(event.id)
        return NotePage(
            items: page.items.map { PhotoJSON($0, viewerID: viewerID, links: nil, pictures: pictures, likedByMe: liked.contains($0.id)) },
            nextCursor: page.next?.token)
    }

    // MARK: Comments

    package func comments(on photoID: String, cursor raw: String?, limit: Int, for identity: Identity?) async throws -> CommentPage {
        let grant = try await photos.photo(photoID, for: identity)
        let page = try await rows.comments(photoID: grant.photo.id, after: try cursor(raw), limit: limit)
        let pictures = try await photos.pictures.inEvent(grant.event.id)
        return CommentPage(items: page.items.map { json($0, viewerID: grant.viewerID, pictures: pictures) }, nextCursor: page.next?.token)
    }

    /// SOC-2: anyone who sees the post says something under it; everyone who sees the post sees it, live.
    package func addComment(_ input: CommentInput, on photoID: String, for identity: Identity?) async throws -> CommentJSON {
        guard let identity else { throw Problem.unauthorized }
        let grant = try await photos.photo(photoID, for: identity)
        let author = try await photos.uploader(event: grant.event, role: grant.role, identity: identity)
        try await limit(author.id)
        let text = try Reactions.comment(input.text)
        let comment = GuestbookRepository.Comment(
            id: newID(), photoID: grant.photo.id, eventID: grant.event.id, authorID: author.id, authorName: author.name, text: text,
            createdAt: clock.now)
        let pictures = try await photos.pictures.inEvent(grant.event.id)
        // The author's picture as it is now goes into the stored news (comments are not rewritten later).
        let facts = json(comment, viewerID: nil, pictures: pictures)
        let approved = grant.photo.approved
        guard
            try await rows.add(
                comment, on: grant.photo,
                facts: { count in
                    ChangePayload(
                        kind: .commentAdded, photoId: comment.photoID, awaitingApproval: approved ? nil : true, comment: facts, commentCount: count)
                }) != nil
        else { throw PhotoService.notFound }
        await photos.changes.refresh(grant.event.id)
        await bell.changed(NotificationService.anyone)
        return json(comment, viewerID: author.id, pictures: pictures)
    }

    /// The author takes their comment down, or the organizer any.
    package func deleteComment(_ id: String, for identity: Identity?) async throws {
        guard identity != nil else { throw Problem.unauthorized }
        let notFound = Problem.notFound("There is no comment with this id, or you cannot see it.")
        guard id.utf8.count <= 64, let comment = try await rows.comment(id: id) else { throw notFound }
        let grant: PhotoService.Grant
        do {
            grant = try await photos.photo(comment.photoID, for: identity)
        } catch let problem as Problem where problem.status == .notFound {
            throw notFound
        }
        guard Reactions.mayDelete(commentBy: comment.authorID, viewerID: grant.viewerID, viewerOwnsTarget: EventAccess(grant.role).organizes) else {
            throw Problem(
                .forbidden, "not-your-comment", title: "Not your comment",
                detail: "Only the person who wrote this comment, or the event's organizer, can delete it.")
        }
        try await rows.remove(comment, of: grant.photo, now: clock.now)
        await photos.changes.refresh(grant.event.id)
    }

    // MARK: Likes

    /// SOC-2: one like per person per post; liking twice, or taking back a like one never gave, changes nothing.
    package func setLike(_ liked: Bool, on photoID: String, for identity: Identity?) async throws -> LikeState {
        let grant = try await photos.photo(photoID, for: identity)
        guard let identity else { throw Problem.unauthorized }
        let liker = try await photos.uploader(event: grant.event, role: grant.role, identity: identity)
        try await limit(liker.id)
        guard let count = try await rows.setLike(liked, on: grant.photo, by: liker.id, name: liker.name, now: clock.now) else {
            throw PhotoService.notFound
        }
        await photos.changes.refresh(grant.event.id)
        await bell.changed(NotificationService.anyone)
        return LikeState(photoId: grant.photo.id, likeCount: count, likedByMe: liked)
    }

    /// Which of these posts the viewer likes (gallery pages).
    package func liked(by viewerID: String, among photoIDs: [String]) async throws -> Set<String> {
        try await rows.liked(by: viewerID, among: photoIDs)
    }

    // MARK: Helpers

    private func limit(_ writerID: String) async throws {
        try await limiter.take([.init(scope: .target, value: writerID)])
    }

    private func cursor(_ raw: String?) throws -> GalleryCursor? {
        try raw.map { raw in
            guard let cursor = GalleryCursor(token: raw) else {
                throw Problem.invalidField("cursor", "This cursor is not one we gave out; start again without it.")
            }
            return cursor
        }
    }

    private func json(_ comment: GuestbookRepository.Comment, viewerID: String?, pictures: [String: String]) -> CommentJSON {
        CommentJSON(
            id: comment.id, photoId: comment.photoID,
            author: .init(name: comment.authorName, avatarURL: pictures[comment.authorID]), text: comment.text,
            createdAt: comment.createdAt, mine: viewerID.map { $0 == comment.authorID })
    }
}
