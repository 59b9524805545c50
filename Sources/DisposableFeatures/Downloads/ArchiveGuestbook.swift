import DisposableCore
import DisposablePlatform
import Foundation

/// `guestbook.txt` in an event's download: the words that are not files — guests' notes and
/// the captions under photos, named as the photos are in the ZIP — so that "everything" is everything.
package enum ArchiveGuestbook {
    package static let fileName = "guestbook.txt"

    /// Nil when there is nothing to write (no note, no caption).
    package static func text(eventName: String, photos: [(photo: Photo, name: String)], notes: [Photo]) -> Data? {
        let captioned = photos.filter { !($0.photo.caption ?? "").isEmpty }
        guard !notes.isEmpty || !captioned.isEmpty else { return nil }
        let time = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(includingFractionalSeconds: false)
        var lines = [eventName, String(repeating: "=", count: min(eventName.count, 60)), ""]
        if !notes.isEmpty {
            lines += ["Notes", ""]
            for note in notes {
                lines.append("\(note.shooterName), \(note.uploadedAt.formatted(time)) UTC")
                lines += (note.caption ?? "").split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
                lines.append("")
            }
        }
        if !captioned.isEmpty {
            lines += ["Captions", ""]
            for (photo, name) in captioned { lines.append("\(name) (\(photo.shooterName)): \(photo.caption ?? "")") }
            lines.append("")
        }
        return Data(lines.joined(separator: "\r\n").utf8)
    }
}
