import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import NIOCore

/// A gallery page's body as one viewer gets it: what every viewer's page of the event has in common, and the
/// rows written with the viewer's own marks (`mine`, `likedByMe`).
package struct GalleryPageText: Sendable {
    package let links: MediaLinks?
    package let pictures: [String: String]
    package let revealed: Bool
    package let revealAt: Date?
    package let developingCount: Int?

    /// The page of `rows` for `viewerID` (nil: someone who shot none of them), who likes `liked` among them.
    package func written(_ rows: [Photo], next: GalleryCursor?, changeSeq: Int64, viewerID: String?, liked: Set<String>) -> ByteBuffer {
        var items = JSONText(capacity: rows.count * 700)
        items.array(rows) { photo, json in
            PhotoJSON(photo, viewerID: viewerID, links: links, pictures: pictures, likedByMe: liked.contains(photo.id)).write(to: &json)
        }
        return ByteBuffer(
            bytes: GalleryPage.json(
                items: items.bytes, nextCursor: next?.token, revealed: revealed, revealAt: revealAt, developingCount: developingCount,
                changeSeq: changeSeq
            ).bytes)
    }
}
