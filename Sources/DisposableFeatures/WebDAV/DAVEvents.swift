import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird

/// `/dav/events/`, read-only: a folder for each event the account organizes or joined, holding the originals it may
/// download there — the event's ZIP as files (`GalleryService.archive`: the same visibility, the location taken out
/// of others' photos).
package struct DAVEvents: Sendable {
    package let events: EventService
    package let gallery: GalleryService
    package let photos: PhotoService

    package init(events: EventService, gallery: GalleryService, photos: PhotoService) {
        self.events = events
        self.gallery = gallery
        self.photos = photos
    }

    /// The account's events by folder name (an event's name, made unique as the ZIP makes names unique).
    package func folders(for user: User) async throws -> [(name: String, event: Event)] {
        let listed = try await events.list(for: user).map(\.0)
        return zip(ArchiveNames.unique(listed.map { Self.folderName($0) }), listed).map { ($0, $1) }
    }

    package func folder(_ name: String, for user: User) async throws -> Event? {
        try await folders(for: user).first { $0.name == name }?.event
    }

    /// The photos of an event's folder by file name; 403 where the organizer turned downloads off for guests.
    package func files(in event: Event, for user: User) async throws -> [(name: String, photo: Photo, own: Bool)] {
        let (_, chosen, _, viewerID) = try await gallery.archive(eventID: event.id, only: nil, for: Self.identity(user))
        return zip(ArchiveNames.unique(chosen.map(\.downloadName)), chosen).map { ($0, $1, $1.uploaderID == viewerID) }
    }

    /// A photo's original as the web gives it to this account.
    package func original(_ photo: Photo, for user: User) async throws -> OriginalSource {
        try await photos.original(photo.id, for: Self.identity(user)).1
    }

    /// The account as the event's rules see it (an API caller with that account, no session of its own).
    package static func identity(_ user: User) -> Identity { .user(user, tokenHash: "") }

    /// An event's name as a folder's: no slashes, control or invisible characters; its code when nothing is left.
    package static func folderName(_ event: Event) -> String {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        let kept = event.name.unicodeScalars.filter { !hidden.contains($0.properties.generalCategory) }
            .map { $0 == "/" || $0 == "\\" ? "-" : Character($0) }
        let name = String(kept).trimmingCharacters(in: .whitespaces)
        return name.isEmpty || name == "." || name == ".." ? event.code.description : String(name.prefix(120))
    }

    /// What PROPFIND says of an event's folder or one of its photos.
    package static func entry(folder event: Event) -> DAVEntry {
        DAVEntry(
            path: "", kind: .folder, assetID: nil, filePrefix: nil, byteSize: 0, etag: "\"\(event.id)\"", contentType: nil,
            createdAt: event.createdAt, modifiedAt: event.createdAt, properties: [])
    }

    package static func entry(photo: Photo, own: Bool) -> DAVEntry {
        DAVEntry(
            path: "", kind: .file, assetID: nil, filePrefix: nil, byteSize: photo.byteSize, etag: etag(photo, own: own),
            contentType: photo.format.mimeType, createdAt: photo.uploadedAt, modifiedAt: photo.uploadedAt, properties: [])
    }

    /// As the API's original has it: another's photo is another file (its location taken out).
    package static func etag(_ photo: Photo, own: Bool) -> String { "\"\(photo.sha256)\(own ? "" : "-nogps")\"" }
}
