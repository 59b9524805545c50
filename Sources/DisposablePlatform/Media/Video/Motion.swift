import DisposableCore
import Foundation

/// LIB-3: the moving part of a live photo — a Google motion photo's MP4 inside its JPEG, or an Apple Live Photo's
/// video stored beside its still.
package struct Motion: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// A range of the original: a Google motion photo's MP4, or a whole video that browsers play as it is.
        case embedded
        /// An Apple Live Photo's video, stored beside its still (`LibraryFiles.motion`) and counted in the quota.
        case file
        /// A video's playable copy, made from its original and stored at `LibraryFiles.motion` like a derivative.
        case derivative
    }

    package let kind: Kind
    /// Where it starts in the original (`embedded`), or 0.
    package let offset: Int64
    package let size: Int64
    package let contentType: String

    package init(kind: Kind, offset: Int64, size: Int64, contentType: String) {
        self.kind = kind
        self.offset = offset
        self.size = size
        self.contentType = contentType
    }

    /// Major brands of the ISO base media files that are videos (MP4, QuickTime, 3GP). HEIC and AVIF are ISO base
    /// media files too, with image brands: not these.
    package static let videoBrands: Set<String> = [
        "qt  ", "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "3gp4", "3gp5", "3gp6", "3g2a", "MSNV",
    ]

    /// The bytes a stored video must start with: a box size, `ftyp` and a video brand. Playlists (HLS), concat
    /// lists, photos and anything else are not videos we keep.
    package static func isVideoContainer(_ head: [UInt8]) -> Bool {
        head.count >= 12 && Array(head[4..<8]) == Array("ftyp".utf8) && videoBrands.contains(String(decoding: head[8..<12], as: UTF8.self))
    }

    /// `video/quicktime` for QuickTime's brand, else `video/mp4`.
    package static func contentType(_ head: [UInt8]) -> String {
        head.count >= 12 && Array(head[8..<12]) == Array("qt  ".utf8) ? "video/quicktime" : "video/mp4"
    }

    /// The MP4 a Google motion photo carries after its JPEG: where its XMP says (`MicroVideoOffset`, or the
    /// `MotionPhoto` item's `Length`, both counted from the end), else right after the JPEG's end-of-image marker.
    package static func embedded(in data: Data) -> Motion? {
        let bytes = [UInt8](data)
        let size = Int64(bytes.count)
        var candidates: [Int64] = []
        let text = String(decoding: bytes.prefix(256 * 1024), as: UTF8.self)
        if let length = number(after: "MicroVideoOffset=\"", in: text) { candidates.append(size - length) }
        if let semantic = text.range(of: "Item:Semantic=\"MotionPhoto\""),
            let length = number(after: "Item:Length=\"", in: String(text[semantic.lowerBound...]))
        {
            candidates.append(size - length)
        }
        // Concatenated without (or with wrong) XMP: a box of `ftyp` right after an end-of-image marker.
        if let found = search(bytes) { candidates.append(found) }
        for start in candidates where start > 4 && start + 12 <= size {
            let head = Array(bytes[Int(start)..<Int(start) + 12])
            if isVideoContainer(head) { return Motion(kind: .embedded, offset: start, size: size - start, contentType: "video/mp4") }
        }
        return nil
    }

    private static func number(after marker: String, in text: String) -> Int64? {
        guard let range = text.range(of: marker) else { return nil }
        return Int64(text[range.upperBound...].prefix { $0.isNumber })
    }

    private static func search(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count > 16 else { return nil }
        var index = 2
        while index + 10 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] == 0xD9, bytes[index + 6] == UInt8(ascii: "f"), bytes[index + 7] == UInt8(ascii: "t"),
                bytes[index + 8] == UInt8(ascii: "y"), bytes[index + 9] == UInt8(ascii: "p")
            {
                return Int64(index + 2)
            }
            index += 1
        }
        return nil
    }
}
