/// Removes GPS from a photo's EXIF without re-encoding (MED-2): the GPS IFD and the values it points to
/// are overwritten with zeros *in place*, so every offset and length in the file stays valid and the
/// picture bytes are untouched. Works on the TIFF structure inside JPEG (APP1), PNG (eXIf), WebP (EXIF)
/// and HEIC/AVIF (Exif item) as long as it lies within the bytes given.
enum ExifGPS {
    /// How much of the start of a file is searched; EXIF sits at the start of JPEG, PNG and WebP files.
    static let searchLength = 256 * 1024

    /// Scrubs every EXIF block found in `bytes`; returns whether any GPS was removed.
    @discardableResult
    static func scrub(_ bytes: inout [UInt8]) -> Bool {
        var removed = false
        var index = 0
        while index + 8 <= bytes.count {
            if isTIFFHeader(bytes, at: index) && isPrecededByExifMarker(bytes, at: index) {
                removed = scrubTIFF(&bytes, at: index) || removed
            }
            index += 1
        }
        return removed
    }

    private static func isTIFFHeader(_ b: [UInt8], at i: Int) -> Bool {
        (b[i] == 0x49 && b[i + 1] == 0x49 && b[i + 2] == 0x2A && b[i + 3] == 0)
            || (b[i] == 0x4D && b[i + 1] == 0x4D && b[i + 2] == 0 && b[i + 3] == 0x2A)
    }

    private static func isPrecededByExifMarker(_ b: [UInt8], at i: Int) -> Bool {
        func matches(_ text: [UInt8], endingAt end: Int) -> Bool {
            end - text.count >= 0 && Array(b[(end - text.count)..<end]) == text
        }
        return matches(Array("Exif".utf8) + [0, 0], endingAt: i)  // JPEG APP1, HEIC, most WebP
            || matches(Array("eXIf".utf8), endingAt: i)  // PNG chunk data
            || matches(Array("EXIF".utf8), endingAt: i - 4)  // WebP chunk: type, size, data
    }

    private static func scrubTIFF(_ b: inout [UInt8], at base: Int) -> Bool {
        let littleEndian = b[base] == 0x49
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= b.count else { return nil }
            return littleEndian ? Int(b[offset]) | Int(b[offset + 1]) << 8 : Int(b[offset]) << 8 | Int(b[offset + 1])
        }
        func u32(_ offset: Int) -> Int? {
            guard let high = u16(littleEndian ? offset + 2 : offset), let low = u16(littleEndian ? offset : offset + 2) else { return nil }
            return high << 16 | low
        }
        func zero(_ start: Int, _ length: Int) {
            guard start >= 0, length > 0, start + length <= b.count else { return }
            for i in start..<(start + length) { b[i] = 0 }
        }
        guard let ifd0 = u32(base + 4).map({ base + $0 }), let entries = u16(ifd0), entries < 1000 else { return false }
        for entry in 0..<entries {
            let position = ifd0 + 2 + entry * 12
            guard u16(position) == 0x8825, let gpsOffset = u32(position + 8) else { continue }
            let gps = base + gpsOffset
            guard let count = u16(gps), count < 1000, gps + 2 + count * 12 + 4 <= b.count else { return false }
            for gpsEntry in 0..<count {
                let p = gps + 2 + gpsEntry * 12
                guard let type = u16(p + 2), let n = u32(p + 4) else { continue }
                let size = n * typeSize(type)
                if size > 4, let valueOffset = u32(p + 8) { zero(base + valueOffset, size) }
            }
            // An empty GPS IFD: zero entries, no next IFD. The pointer to it stays valid.
            zero(gps, 2 + count * 12 + 4)
            return count > 0
        }
        return false
    }

    private static func typeSize(_ type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11: 4
        case 5, 10, 12: 8
        default: 1
        }
    }
}
