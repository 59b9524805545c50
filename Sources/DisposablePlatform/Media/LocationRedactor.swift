import DisposableCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Works out the `Redaction` that takes the location out of an original (MED-2), by walking the file's real
/// structure: every JPEG segment (and those of images embedded after the first, as phones add), PNG and
/// WebP chunks, HEIC/AVIF items through their locations, GIF extensions. EXIF loses its GPS IFD; XMP loses
/// every location property. A block that cannot be cleaned with certainty is blanked whole — the file is
/// then served to others without it — and a file whose structure cannot be walked has every EXIF and XMP
/// block found by searching its bytes blanked.
///
/// It reads only what it walks, a piece at a time, never the whole file at once.
package struct LocationRedactor {
    package let file: FileBytes
    package var redaction = Redaction()

    /// The largest metadata block read whole to be cleaned; larger ones are blanked unread.
    package static let blockLimit = 4 << 20

    package static func redaction(forFileAt path: String) throws -> Redaction {
        let file = try FileBytes(path: path)
        var redactor = LocationRedactor(file: file)
        redactor.walk()
        return redactor.redaction
    }

    package mutating func walk() {
        guard let magic = file.read(0, 12) else { return }
        let walked: Bool
        if magic.starts(with: [0xFF, 0xD8, 0xFF]) {
            walked = walkJPEG()
        } else if magic.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            walked = walkPNG()
        } else if magic.starts(with: Array("RIFF".utf8)), Array(magic[8..<12]) == Array("WEBP".utf8) {
            walked = walkWebP()
        } else if Array(magic[4..<8]) == Array("ftyp".utf8) {
            walked = walkISOBMFF()
        } else if magic.starts(with: Array("GIF8".utf8)) {
            walked = walkGIF()
        } else {
            walked = false
        }
        if !walked { searchAndBlank() }
    }

    // MARK: Blocks

    package enum ExifLayout {
        /// `Exif\0\0` then TIFF, or TIFF straight away (JPEG APP1, PNG eXIf, WebP EXIF).
        case prefixedOrBare
        /// A 4-byte big-endian offset to the TIFF header (HEIF's Exif item).
        case heif
    }

    /// Removes the GPS of the EXIF block at `offset`; blanks the block when it cannot.
    package mutating func exif(_ offset: Int64, _ length: Int, layout: ExifLayout = .prefixedOrBare) {
        guard length > 0 else { return }
        guard length <= Self.blockLimit, let block = file.read(offset, length) else { return blank(offset, length, with: 0) }
        var start: Int? = nil
        switch layout {
        case .prefixedOrBare:
            if block.starts(with: Array("Exif".utf8) + [0, 0]), TIFFLocation.isHeader(block, at: 6) {
                start = 6
            } else if TIFFLocation.isHeader(block, at: 0) {
                start = 0
            }
        case .heif:
            if block.count >= 4 {
                let skip = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
                if TIFFLocation.isHeader(block, at: 4 + skip) { start = 4 + skip }
            }
        }
        guard let start, let ranges = TIFFLocation.ranges(in: Array(block[start...])) else { return blank(offset, length, with: 0) }
        for range in ranges { redaction.fill(offset + Int64(start + range.lowerBound), range.count, with: 0) }
    }

    /// Removes the location properties of the XMP text at `offset`; blanks the block when it cannot.
    package mutating func xmp(_ offset: Int64, _ length: Int) {
        guard length > 0 else { return }
        guard length <= Self.blockLimit, let text = file.read(offset, length), let ranges = XMPLocation.ranges(in: text) else {
            return blank(offset, length, with: 0x20)
        }
        for range in ranges { redaction.fill(offset + Int64(range.lowerBound), range.count, with: 0x20) }
    }

    package mutating func blank(_ offset: Int64, _ length: Int, with byte: UInt8) {
        redaction.fill(offset, length, with: byte)
    }

    // MARK: When the structure cannot be walked

    /// Finds EXIF and XMP by their signatures anywhere in the file and blanks them: the TIFF header of each
    /// EXIF (no reader gets past it), and each XMP packet from its start to its end.
    private mutating func searchAndBlank() {
        let exifMark = Array("Exif".utf8) + [0, 0]
        let xmpStart = Array("<x:xmpmeta".utf8)
        let xmpEnd = Array("</x:xmpmeta>".utf8)
        let window = 1 << 20
        var offset: Int64 = 0
        var openXMP: Int64? = nil
        while offset < file.size {
            guard let bytes = file.read(offset, Int(min(Int64(window + 64), file.size - offset))) else { return }
            for index in Self.occurrences(of: exifMark, in: bytes) where TIFFLocation.isHeader(bytes, at: index + 6) {
                blank(offset + Int64(index + 6), 8, with: 0)
            }
            if openXMP == nil, let start = Self.occurrences(of: xmpStart, in: bytes).first { openXMP = offset + Int64(start) }
            if let start = openXMP, let end = Self.occurrences(of: xmpEnd, in: bytes).first(where: { offset + Int64($0) > start }) {
                let stop = offset + Int64(end + xmpEnd.count)
                blank(start, Int(stop - start), with: 0x20)
                openXMP = nil
            }
            offset += Int64(window)
        }
        if let start = openXMP { blank(start, Int(min(file.size - start, Int64(Self.blockLimit))), with: 0x20) }
    }

    package static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard needle.count <= bytes.count else { return [] }
        var found: [Int] = []
        bytes.withUnsafeBytes { haystack in
            var index = 0
            // memchr finds each candidate first byte (vectorised); the rest is compared there.
            while index + needle.count <= haystack.count, let hit = memchr(haystack.baseAddress! + index, Int32(needle[0]), haystack.count - index) {
                let position = haystack.baseAddress!.distance(to: UnsafeRawPointer(hit))
                guard position + needle.count <= haystack.count else { break }
                if memcmp(haystack.baseAddress! + position, needle, needle.count) == 0 { found.append(position) }
                index = position + 1
            }
        }
        return found
    }
}

/// A file read a piece at a time, by position.
package final class FileBytes {
    package let descriptor: Int32
    package let size: Int64

    package init(path: String) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Exactly `length` bytes at `offset`, or nil past the end.
    package func read(_ offset: Int64, _ length: Int) -> [UInt8]? {
        guard offset >= 0, length >= 0, offset + Int64(length) <= size else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, length - done, off_t(offset) + off_t(done)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        return bytes
    }
}
