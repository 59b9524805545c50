import DisposableCore
import DisposablePlatform
import Foundation

/// How a gallery is sorted.
package enum GalleryOrder: String, Sendable {
    /// Newest upload first (the live gallery).
    case uploaded
    /// Latest capture time first.
    case taken

    package var column: String { self == .uploaded ? "uploaded_at" : "taken_at" }
}

/// A position in a gallery: the sort time and id of the last item seen. New photos sort before
/// any cursor, so paging stays stable while people keep shooting.
package struct GalleryCursor: Sendable {
    package let time: Int64
    package let id: String

    /// Base64url without padding. Read and written byte by byte: `replacingOccurrences` goes through
    /// NSString on Linux, and decoding the cursor that way was 9 % of a deep page's CPU.
    package var token: String {
        let base64 = Data("\(time):\(id)".utf8).base64EncodedData()
        return String(
            decoding: base64.lazy.filter { $0 != UInt8(ascii: "=") }.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "+"): UInt8(ascii: "-")
                case UInt8(ascii: "/"): UInt8(ascii: "_")
                default: byte
                }
            }, as: UTF8.self)
    }

    package init(time: Int64, id: String) {
        self.time = time
        self.id = id
    }

    package init?(token: String) {
        guard token.utf8.count <= 256 else { return nil }
        var base64 = token.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        base64 += repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: Data(base64)) else { return nil }
        let parts = data.split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let time = Int64(String(decoding: parts[0], as: UTF8.self)), !parts[1].isEmpty,
            parts[1].allSatisfy({
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20)
            })
        else { return nil }
        self.init(time: time, id: String(decoding: parts[1], as: UTF8.self))
    }
}
