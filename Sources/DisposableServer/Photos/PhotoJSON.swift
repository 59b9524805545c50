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

    /// With `links`, the thumbnail and preview are signed links (fast, no session needed); without,
    /// the session-checked API addresses (change-log payloads, signed when they are sent).
    init(_ photo: Photo, viewerID: String?, links: MediaLinks?) {
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
        urls = URLs(photo, links: links)
    }
}

extension PhotoJSON.URLs {
    init(_ photo: Photo, links: MediaLinks?) {
        let base = "/api/v1/photos/\(photo.id)"
        (thumbnail, preview) = links?.paths(eventID: photo.eventID, photoID: photo.id) ?? (base + "/thumbnail", base + "/preview")
        original = base + "/original"
    }
}

extension PhotoJSON {
    /// The same JSON as `JSONEncoder.sorted` gives, written directly (keys in sorted order).
    func write(to json: inout JSONText) {
        json.object { json in
            json.field("approved", approved)
            json.field("byteSize", byteSize)
            json.field("downloadName", downloadName)
            json.field("eventId", eventId)
            json.field("format", format)
            json.field("height", height)
            json.field("id", id)
            json.field("mine", mine)
            json.field("sha256", sha256)
            json.key("shooter")
            json.object { json in
                json.field("name", shooter.name)
                json.field("number", shooter.number)
            }
            json.field("source", source.rawValue)
            json.field("status", status.rawValue)
            json.field("takenAt", takenAt)
            json.field("uploadedAt", uploadedAt)
            json.key("urls")
            json.object { json in
                json.field("original", urls.original)
                json.field("preview", urls.preview)
                json.field("thumbnail", urls.thumbnail)
            }
            json.field("width", width)
        }
    }
}
