import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// "My data" (SUP-4): what is stored about the person asking, their export (their own photos, as they sent
/// them, and `data.json`), and erasing it — an account with everything in it, or a guest's photos in their event.
package struct MyDataService: Sendable {
    /// What is read and erased of a person across the tables (`PersonalDataRepository`).
    let rows: PersonalDataRepository
    package let accounts: AccountService
    /// The account's devices' passwords (their names and last uses; never the secrets).
    package let appPasswords: AppPasswordService
    package let profiles: ProfileService
    package let events: EventService
    package let photos: PhotoService
    let photoRows: PhotoRepository
    package let deletion: EventDeletion
    package let pendingWrites: PendingWrites
    package let blobs: any BlobStore
    package let changes: ChangeHub
    package let clock: any AppClock

    init(
        rows: PersonalDataRepository, accounts: AccountService, appPasswords: AppPasswordService, profiles: ProfileService, events: EventService,
        photos: PhotoService, photoRows: PhotoRepository, deletion: EventDeletion, pendingWrites: PendingWrites, blobs: any BlobStore,
        changes: ChangeHub, clock: any AppClock
    ) {
        self.rows = rows
        self.accounts = accounts
        self.appPasswords = appPasswords
        self.profiles = profiles
        self.events = events
        self.photos = photos
        self.photoRows = photoRows
        self.deletion = deletion
        self.pendingWrites = pendingWrites
        self.blobs = blobs
        self.changes = changes
        self.clock = clock
    }

    /// A stored file of the export: where it is, and its name, size and time in the ZIP.
    package struct ExportFile: Sendable {
        package let key: String
        package let name: String
        package let size: Int64
        package let modified: Date
    }

    /// What is stored, and the files to put beside it in the export: my own photos and my library, as I sent them.
    package func collect(for identity: Identity?) async throws -> (data: MyData, files: [ExportFile]) {
        switch identity {
        case nil: throw Problem.unauthorized
        case .guest(let guest, _):
            let membership = try await rows.memberships(guestIDs: [guest.id]).first
            let own = try await ownPhotos(uploaderIDs: [guest.id])
            var data = MyData(
                kind: "guest", exportedAt: clock.now, guest: membership, memberships: [], events: [], photos: own.map(\.1), sessions: [],
                tickets: [])
            data.pushDevices = try await rows.pushDevices(.guest(guest.id))
            return (data, own.map(Self.exportFile))
        case .user(let user, let tokenHash):
            let guestIDs = try await rows.memberships(of: user.id).map(\.id)
            let own = try await ownPhotos(uploaderIDs: [user.id] + guestIDs)
            let usage = try await accounts.usage(of: user)
            var data = MyData(
                kind: "user", exportedAt: clock.now,
                account: .init(
                    id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin, createdAt: user.createdAt,
                    quotaBytes: usage?.allowed ?? 0, usedBytes: usage?.used ?? 0),
                memberships: try await rows.memberships(guestIDs: guestIDs), events: try await rows.organized(by: user.id), photos: own.map(\.1),
                sessions: try await accounts.sessions(of: user, current: tokenHash), tickets: try await rows.tickets(of: user.id))
            let library = try await libraryFiles(of: user.id)
            data.library = library.map(\.1)
            data.moments = try await rows.moments(of: user.id)
            data.scrobbler = try await rows.scrobbler(of: user.id)
            data.appPasswords = try await appPasswords.list(for: user)
            data.pushDevices = try await rows.pushDevices(.user(user.id))
            data.friends = try await rows.friendNames(of: user.id)
            data.capsuleComments = try await rows.capsuleComments(by: user.id)
            data.coOrganized = try await rows.coOrganized(by: user.id)
            data.capsules = try await rows.capsules(of: user.id).reversed().map {
                .init(
                    month: $0.month.text, photoIds: $0.assetIDs, quote: $0.quote, songTitle: $0.songTitle, songArtist: $0.songArtist,
                    releasedAt: $0.releasedAt)
            }
            // The account's picture too, as the account shows it.
            let picture = try await profiles.avatar(of: user.id).map {
                ExportFile(key: ProfileService.key(user.id), name: "profile-picture.jpg", size: Int64($0.readableBytes), modified: clock.now)
            }
            return (data, own.map(Self.exportFile) + library.map(\.0) + (picture.map { [$0] } ?? []))
        }
    }

    private static func exportFile(_ own: (Photo, MyData.Photo)) -> ExportFile {
        ExportFile(key: BlobKey.original(own.0.eventID, own.0.id), name: own.1.file, size: own.0.byteSize, modified: own.0.takenAt)
    }

    /// The account's library (trash included), named as they were sent, under `library/`.
    private func libraryFiles(of userID: String) async throws -> [(ExportFile, MyData.LibraryFile)] {
        let assets = try await rows.libraryAssets(of: userID)
        let names = ArchiveNames.unique(assets.map(\.fileName))
        return zip(assets, names).map { asset, name in
            (
                ExportFile(key: asset.files.original, name: "library/" + name, size: asset.byteSize, modified: asset.takenAt),
                MyData.LibraryFile(
                    id: asset.id, file: "library/" + name, takenAt: asset.takenAt, byteSize: asset.byteSize, format: asset.format.rawValue,
                    sha256: asset.sha256, inTrash: asset.trashedAt != nil, caption: asset.caption)
            )
        }
    }

    /// Erases the person asking: an account (its e-mail typed again) with its events, its photos, comments and likes
    /// anywhere, its memberships, tickets and sessions; a guest's photos, comments and likes in their event.
    package func erase(for identity: Identity?, confirmEmail: String?) async throws {
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
    package func eraseAccount(_ userID: String) async throws {
        try await accounts.stepDownBeforeErasing(userID)
        let organized = try await rows.organizedEventIDs(of: userID)
        for event in organized { try await deletion.delete(eventID: event, reason: .accountDeleted) }
        // Photos they took as a guest of others' events, signed in: gone like single deletions.
        let memberships = try await rows.memberships(of: userID)
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
        try await rows.eraseRows(of: userID)
    }

    private func ownPhotos(uploaderIDs: [String]) async throws -> [(Photo, MyData.Photo)] {
        guard !uploaderIDs.isEmpty else { return [] }
        let kept = try await photoRows.kept(uploadedBy: uploaderIDs)
        let names = ArchiveNames.unique(kept.map(\.downloadName))
        return zip(kept, names).map { photo, name in
            (
                photo,
                MyData.Photo(
                    id: photo.id, eventId: photo.eventID, file: "photos/" + name, takenAt: photo.takenAt, uploadedAt: photo.uploadedAt,
                    byteSize: photo.byteSize, format: photo.format.rawValue, sha256: photo.sha256)
            )
        }
    }
}
