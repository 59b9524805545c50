import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

extension PhotoJSON {
    /// With `links`, the thumbnail and preview are signed links (fast, no session needed); without,
    /// the session-checked API addresses (change-log payloads, signed when they are sent). `pictures`: the
    /// event's `ShooterPictures`.
    package init(_ photo: Photo, viewerID: String?, links: MediaLinks?, pictures: [String: String] = [:], likedByMe: Bool? = nil) {
        let isNote = photo.kind == .note
        self.init(
            id: photo.id, eventId: photo.eventID,
            shooter: Shooter(name: photo.shooterName, number: photo.shooterNumber, avatarURL: pictures[photo.uploaderID]),
            takenAt: photo.takenAt, uploadedAt: photo.uploadedAt, width: photo.width, height: photo.height, byteSize: photo.byteSize,
            format: isNote ? "text" : photo.format.rawValue, status: photo.status, approved: photo.approved, source: photo.source,
            sha256: photo.sha256,
            downloadName: photo.downloadName, mine: photo.uploaderID == viewerID,
            urls: isNote
                ? nil
                : URLs(
                    photoID: photo.id, eventID: photo.eventID, links: links, video: photo.kind == .video, previewPending: photo.previewPending,
                    firstLook: photo.showsFirstLook),
            caption: isNote ? nil : photo.caption,
            kind: photo.kind, text: isNote ? photo.caption : nil, likeCount: photo.likeCount, commentCount: photo.commentCount,
            likedByMe: likedByMe, durationSeconds: photo.duration.map(Self.wholeSeconds), previewPending: photo.previewPending ? true : nil,
            firstLook: photo.showsFirstLook ? true : nil)
    }

    /// A video's length as players show it: whole seconds, rounded down (4.6 s reads "0:04" in the player, so
    /// the label says 4 s, not 5), at least 1; within 50 ms of the next second it is that one.
    package static func wholeSeconds(_ duration: Double) -> Int { max(1, Int((duration + 0.05).rounded(.down))) }
}

extension PhotoJSON.URLs {
    /// `previewPending`: the preview is not made yet; the thumbnail stands in for it, so that no client shows a
    /// broken picture. `firstLook`: neither is made yet, and the phone's first look stands in for both — under its own
    /// address, so that no browser keeps it as the thumbnail once the server's exists.
    package init(photoID: String, eventID: String, links: MediaLinks?, video: Bool = false, previewPending: Bool = false, firstLook: Bool = false) {
        let base = "/api/v1/photos/\(photoID)"
        var (thumbnail, preview) = links?.paths(eventID: eventID, photoID: photoID) ?? (base + "/thumbnail", base + "/preview")
        if firstLook { thumbnail = links?.firstLookPath(eventID: eventID, photoID: photoID) ?? base + "/thumbnail?first-look" }
        self.init(
            thumbnail: thumbnail, preview: previewPending ? thumbnail : preview, original: base + "/original", video: video ? base + "/video" : nil)
    }
}

extension PhotoJSON {
    /// The same JSON as `JSONEncoder.sorted` gives, written directly (keys in sorted order): the gallery is the
    /// busiest read. `TextFormatsTests` checks it byte for byte against the `Codable` encoding.
    package func write(to json: inout JSONText) {
        json.object { json in
            json.field("approved", approved)
            json.field("byteSize", byteSize)
            json.field("caption", caption)
            json.field("commentCount", commentCount)
            json.field("downloadName", downloadName)
            json.field("durationSeconds", durationSeconds)
            json.field("eventId", eventId)
            json.field("firstLook", firstLook)
            json.field("format", format)
            json.field("height", height)
            json.field("id", id)
            json.field("kind", kind.rawValue)
            json.field("likeCount", likeCount)
            json.field("likedByMe", likedByMe)
            json.field("mine", mine)
            json.field("previewPending", previewPending)
            json.field("sha256", sha256)
            json.key("shooter")
            json.object { json in
                json.field("avatarURL", shooter.avatarURL)
                json.field("name", shooter.name)
                json.field("number", shooter.number)
            }
            json.field("source", source.rawValue)
            json.field("status", status.rawValue)
            json.field("takenAt", takenAt)
            json.field("text", text)
            json.field("uploadedAt", uploadedAt)
            if let urls {
                json.key("urls")
                json.object { json in
                    json.field("original", urls.original)
                    json.field("preview", urls.preview)
                    json.field("thumbnail", urls.thumbnail)
                    json.field("video", urls.video)
                }
            }
            json.field("width", width)
        }
    }
}

extension GalleryPage {
    /// A page around its `items` array, written before (see `PhotoJSON.write`).
    package static func json(
        items: [UInt8], nextCursor: String?, revealed: Bool, revealAt: Date?, developingCount: Int?,
        changeSeq: Int64
    ) -> JSONText {
        var json = JSONText(capacity: 256 + items.count)
        json.object { json in
            json.field("changeSeq", changeSeq)
            json.field("developingCount", developingCount)
            json.key("items")
            json.written(items)
            json.field("nextCursor", nextCursor)
            json.field("revealAt", revealAt)
            json.field("revealed", revealed)
        }
        return json
    }

    /// The whole page written directly.
    package var json: JSONText {
        var items = JSONText(capacity: self.items.count * 700)
        items.array(self.items) { item, json in item.write(to: &json) }
        return Self.json(
            items: items.bytes, nextCursor: nextCursor, revealed: revealed, revealAt: revealAt,
            developingCount: developingCount, changeSeq: changeSeq)
    }
}
