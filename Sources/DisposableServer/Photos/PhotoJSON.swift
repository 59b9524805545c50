import Foundation

/// A photo as the API shows it (gallery items and `GET /api/v1/photos/{id}`).
struct PhotoJSON: Encodable, Sendable {
    struct Shooter: Encodable, Sendable {
        let name: String
        let number: Int
    }

    struct URLs: Encodable, Sendable {
        let thumbnail: String
        let preview: String
        let original: String
    }

    let id: String
    let eventId: String
    let shooter: Shooter
    let takenAt: Date
    let uploadedAt: Date
    let width: Int?
    let height: Int?
    let byteSize: Int64
    let format: String
    let status: PhotoStatus
    /// False while it waits for the organizer's approval (ORG-4).
    let approved: Bool
    let source: PhotoSource
    let sha256: String
    let downloadName: String
    /// True for the caller's own photos.
    let mine: Bool
    let urls: URLs

    init(_ photo: Photo, viewerID: String?) {
        id = photo.id
        eventId = photo.eventID
        shooter = Shooter(name: photo.shooterName, number: photo.shooterNumber)
        takenAt = photo.takenAt
        uploadedAt = photo.uploadedAt
        width = photo.width
        height = photo.height
        byteSize = photo.byteSize
        format = photo.format.rawValue
        status = photo.status
        approved = photo.approved
        source = photo.source
        sha256 = photo.sha256
        downloadName = photo.downloadName
        mine = photo.uploaderID == viewerID
        let base = "/api/v1/photos/\(photo.id)"
        urls = URLs(thumbnail: base + "/thumbnail", preview: base + "/preview", original: base + "/original")
    }
}
