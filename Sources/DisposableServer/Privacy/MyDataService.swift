import DisposableAPI
import Foundation
import SQLKit

/// "My data" (SUP-4): what is stored about the person asking, their export (their own photos, as they sent
/// them, and `data.json`), and erasing it — an account with everything in it, or a guest's photos in their event.
struct MyDataService: Sendable {
    let database: any DatabaseEngine
    let accounts: AccountService
    let events: EventService
    let photos: PhotoService
    let photoRows: PhotoRepository
    let deletion: EventDeletion
    let pendingWrites: PendingWrites
    let blobs: any BlobStore
    let changes: ChangeHub
    let clock: any AppClock

    /// A stored file of the export: where it is, and its name, size and time in the ZIP.
    struct ExportFile: Sendable {
        let key: String
        let name: String
        let size: Int64
        let modified: Date
    }

    /// What is stored, and the files to put beside it in the export: my own photos and my library, as I sent them.
    func collect(for identity: Identity?) async throws -> (data: MyData, files: [ExportFile]) {
        switch identity {
        case nil: throw Problem.unauthorized
        case .guest(let guest, _):
            let membership = try await memberships(guestIDs: [guest.id]).first
            let own = try await ownPhotos(uploaderIDs: [guest.id])
            let data = MyData(
                kind: "guest", exportedAt: clock.now, guest: membership, memberships: [], events: [], photos: own.map(\.1), sessions: [],
                tickets: [])
            return (data, own.map(Self.exportFile))
        case .user(let user, let tokenHash):
            let guestIDs = try await database.read { db in
                try await db.raw("SELECT id FROM guests WHERE user_id = \(bind: user.id)").all().map { try $0.decode(column: "id", as: String.self) }
            }
            let own = try await ownPhotos(uploaderIDs: [user.id] + guestIDs)
            let usage = try await accounts.usage(of: user)
            var data = MyData(
                kind: "user", exportedAt: clock.now,
                account: .init(
                    id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, createdAt: user.createdAt,
                    quotaBytes: usage?.allowed ?? 0, usedBytes: usage?.used ?? 0),
                memberships: try await memberships(guestIDs: guestIDs), events: try await organized(by: user.id), photos: own.map(\.1),
                sessions: try await accounts.sessions(of: user, current: tokenHash), tickets: try await tickets(of: user.id))
            let library = try await libraryFiles(of: user.id)
            data.library = library.map(\.1)
            data.moments = try await moments(of: user.id)
            data.friends = try await FriendService.names(of: user.id, in: database)
            data.capsuleComments = try await StoryBoardService.comments(by: user.id, in: database)
            data.capsules = try await CapsuleRepository(database: database).all(userID: user.id).reversed().map {
                .init(
                    month: $0.month.text, photoIds: $0.assetIDs, quote: $0.quote, songTitle: $0.songTitle, songArtist: $0.songArtist,
                    releasedAt: $0.releasedAt)
            }
            return (data, own.map(Self.exportFile) + library.map(\.0))
        }
    }

    private static func exportFile(_ own: (Photo, MyData.Photo)) -> ExportFile {
        ExportFile(key: BlobKey.original(own.0.eventID, own.0.id), name: own.1.file, size: own.0.byteSize, modified: own.0.takenAt)
    }

    private func moments(of userID: String) async throws -> [MomentJSON] {
        try await database.read { db in
            try await db.raw("SELECT id, text, created_at FROM moments WHERE user_id = \(bind: userID) ORDER BY created_at, id").all()
                .map(MomentService.moment(from:))
        }
    }

    /// The account's library (trash included), named as they were sent, under `library/`.
    private func libraryFiles(of userID: String) async throws -> [(ExportFile, MyData.LibraryFile)] {
        let assets = try await database.read { db in
            try await db.raw("SELECT * FROM library_assets WHERE user_id = \(bind: userID) AND deleted_at IS NULL ORDER BY taken_at, id")
                .all().map(LibraryAsset.from)
        }
        let names = ArchiveController.uniqueNames(assets.map(\.fileName))
        return zip(assets, names).map { asset, name in
            (
                ExportFile(key: asset.files.original, name: "library/" + name, size: asset.byteSize, modified: asset.takenAt),
                MyData.LibraryFile(
                    id: asset.id, file: "library/" + name, takenAt: asset.takenAt, byteSize: asset.byteSize, format: asset.format.rawValue,
                    sha256: asset.sha256, inTrash: asset.trashedAt != nil)
            )
        }
    }

    /// Erases the person asking: an account (its e-mail typed again) with its events, its photos, comments and likes
    /// anywhere, its memberships, tickets and sessions; a guest's photos, comments and likes in their event.
    func erase(for identity: Identity?, confirmEmail: String?) async throws {
        guard let identity else { throw Problem.unauthorized }
        switch identity {
        case .guest(let guest, _):
            let (event, _) = try await events.event(guest.eventID, for: identity)
            _ = try await photos.deleteAll(by: guest.id, in: event)
            try await photos.likes.removeAll(by: guest.id, eventID: event.id, now: clock.now)
            await changes.refresh(event.id)
        case .user(let user, _):
            guard confirmEmail?.trimmingCharacters(in: .whitespaces).lowercased() == user.email else {
                throw Problem.invalidField("confirmEmail", "Type your account's e-mail address to confirm that everything in it is deleted.")
            }
            try await eraseAccount(user.id)
        }
    }

    /// An account and every file and row of it (also the admin's "delete user", ADM-4).
    func eraseAccount(_ userID: String) async throws {
        try await accounts.ensureNotLastAdmin(userID)
        let organized = try await database.read { db in
            try await db.raw("SELECT id FROM events WHERE organizer_id = \(bind: userID)").all().map { try $0.decode(column: "id", as: String.self) }
        }
        for event in organized { try await deletion.delete(eventID: event, reason: .accountDeleted) }
        // Photos they took as a guest of others' events, signed in: gone like single deletions.
        let memberships = try await database.read { db in
            try await db.raw("SELECT id, event_id FROM guests WHERE user_id = \(bind: userID)").all().map {
                (id: try $0.decode(column: "id", as: String.self), eventID: try $0.decode(column: "event_id", as: String.self))
            }
        }
        let guestIDs = memberships.map(\.id)
        // Their comments and likes there (SOC-2), taken back as they would take them back themselves.
        for membership in memberships {
            try await photos.likes.removeAll(by: membership.id, eventID: membership.eventID, now: clock.now)
            await changes.refresh(membership.eventID)
        }
        for (photo, _) in try await ownPhotos(uploaderIDs: guestIDs) {
            try await photoRows.delete(photo, now: clock.now)
            try await pendingWrites.abandon(eventID: photo.eventID, photoID: photo.id)
            await changes.refresh(photo.eventID)
        }
        try await blobs.delete(key: ProfileService.key(userID))
        // Their own library (LIB-1): every file, then the rows go with the account.
        try await blobs.delete(prefix: LibraryFiles.library(of: userID))
        try await database.transaction { db in
            try await db.raw("DELETE FROM jobs WHERE subject_id IN (SELECT id FROM library_assets WHERE user_id = \(bind: userID))").run()
            try await db.raw("DELETE FROM guests WHERE user_id = \(bind: userID)").run()
            try await db.raw("DELETE FROM support_tickets WHERE user_id = \(bind: userID)").run()
            // What they were told as an account (capsules, moments): notices name their recipient, not reference it.
            try await db.raw("DELETE FROM notifications WHERE recipient_id = \(bind: userID)").run()
            // and what others were told of them as friends (their name in "… wants to be your friend", their comments).
            try await db.raw(
                """
                DELETE FROM notifications WHERE actor_id = \(bind: userID)
                  AND kind IN ('friend-request', 'friend-accepted', 'capsule-shared', 'capsule-reaction', 'capsule-comment')
                """
            ).run()
            try await db.raw("DELETE FROM users WHERE id = \(bind: userID)").run()
        }
    }

    private func ownPhotos(uploaderIDs: [String]) async throws -> [(Photo, MyData.Photo)] {
        guard !uploaderIDs.isEmpty else { return [] }
        let rows = try await database.read { db in
            try await db.raw(
                "SELECT * FROM photos WHERE uploader_id IN (\(binds: uploaderIDs)) AND status <> 'failed' ORDER BY uploaded_at, id"
            ).all().map(PhotoRepository.photo(from:))
        }
        let names = ArchiveController.uniqueNames(rows.map(\.downloadName))
        return zip(rows, names).map { photo, name in
            (
                photo,
                MyData.Photo(
                    id: photo.id, eventId: photo.eventID, file: "photos/" + name, takenAt: photo.takenAt, uploadedAt: photo.uploadedAt,
                    byteSize: photo.byteSize, format: photo.format.rawValue, sha256: photo.sha256)
            )
        }
    }

    private func memberships(guestIDs: [String]) async throws -> [MyData.Membership] {
        guard !guestIDs.isEmpty else { return [] }
        return try await database.read { db in
            try await db.raw(
                """
                SELECT g.*, e.name AS event_name FROM guests g JOIN events e ON e.id = g.event_id
                WHERE g.id IN (\(binds: guestIDs)) ORDER BY g.joined_at
                """
            ).all().map { row in
                let guest = try GuestRepository.guest(from: row)
                return MyData.Membership(
                    guestId: guest.id, eventId: guest.eventID, eventName: try row.decode(column: "event_name", as: String.self), name: guest.name,
                    joinedAt: guest.joinedAt, leftAt: guest.leftAt, shotsUsed: guest.shotsUsed,
                    termsVersion: try row.decode(column: "terms_version", as: String?.self),
                    termsAcceptedAt: try row.decode(column: "terms_accepted_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)))
            }
        }
    }

    private func organized(by userID: String) async throws -> [MyData.Event] {
        try await database.read { db in
            try await db.raw(
                """
                SELECT e.id, e.name, e.code, e.starts_at, e.ends_at, (SELECT COUNT(*) FROM photos p WHERE p.event_id = e.id) AS photo_count
                FROM events e WHERE e.organizer_id = \(bind: userID) ORDER BY e.starts_at
                """
            ).all().map { row in
                MyData.Event(
                    id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                    code: try row.decode(column: "code", as: String.self),
                    startsAt: Date(millisecondsSince1970: try row.decode(column: "starts_at", as: Int64.self)),
                    endsAt: Date(millisecondsSince1970: try row.decode(column: "ends_at", as: Int64.self)),
                    photoCount: try row.decode(column: "photo_count", as: Int.self))
            }
        }
    }

    private func tickets(of userID: String) async throws -> [MyData.Ticket] {
        try await database.read { db in
            try await db.raw("SELECT id, subject, status, created_at FROM support_tickets WHERE user_id = \(bind: userID) ORDER BY created_at")
                .all().map { row in
                    MyData.Ticket(
                        id: try row.decode(column: "id", as: String.self), subject: try row.decode(column: "subject", as: String.self),
                        status: try row.decode(column: "status", as: String.self),
                        createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)))
                }
        }
    }
}
