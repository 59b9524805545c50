/// Where a TIFF structure (EXIF, in every format) keeps the location: the GPS IFD and the values it points to.
/// Emptying them in place — zero entries, zeroed values — leaves every other tag and offset valid.
import DisposableCore

package enum TIFFLocation {
    /// Byte ranges (relative to `tiff`'s start) to zero; nil when the structure cannot be followed, so the
    /// caller removes the whole block instead.
    package static func ranges(in tiff: [UInt8]) -> [Range<Int>]? {
        guard tiff.count >= 8, isHeader(tiff, at: 0) else { return nil }
        let littleEndian = tiff[0] == 0x49
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            return littleEndian ? Int(tiff[offset]) | Int(tiff[offset + 1]) << 8 : Int(tiff[offset]) << 8 | Int(tiff[offset + 1])
        }
        func u32(_ offset: Int) -> Int? {
            guard let high = u16(littleEndian ? offset + 2 : offset), let low = u16(littleEndian ? offset : offset + 2) else { return nil }
            return high << 16 | low
        }
        var ranges: [Range<Int>] = []
        var next = u32(4)
        var visited: Set<Int> = []
        // IFD0, IFD1…: the GPS pointer belongs in IFD0, but nothing stops a writer from putting it further on.
        while let ifd = next, ifd != 0, visited.count < 8 {
            guard visited.insert(ifd).inserted, let entries = u16(ifd), entries < 1000, ifd + 2 + entries * 12 + 4 <= tiff.count else {
                return nil
            }
            for entry in 0..<entries {
                let position = ifd + 2 + entry * 12
                guard u16(position) == 0x8825 else { continue }
                guard let gps = u32(position + 8), let count = u16(gps), count < 1000, gps + 2 + count * 12 + 4 <= tiff.count else {
                    return nil
                }
                for gpsEntry in 0..<count {
                    let p = gps + 2 + gpsEntry * 12
                    guard let type = u16(p + 2), let n = u32(p + 4) else { return nil }
                    let size = n * typeSize(type)
                    if size > 4 {
                        guard let value = u32(p + 8), value + size <= tiff.count else { return nil }
                        ranges.append(value..<(value + size))
                    }
                }
                // An empty GPS IFD: zero entries, no next IFD. The pointer to it stays valid.
                ranges.append(gps..<(gps + 2 + count * 12 + 4))
            }
            next = u32(ifd + 2 + entries * 12)
        }
        return ranges
    }

    package static func isHeader(_ b: [UInt8], at i: Int) -> Bool {
        guard i >= 0, i + 4 <= b.count else { return false }
        return (b[i] == 0x49 && b[i + 1] == 0x49 && b[i + 2] == 0x2A && b[i + 3] == 0)
            || (b[i] == 0x4D && b[i + 1] == 0x4D && b[i + 2] == 0 && b[i + 3] == 0x2A)
    }

    private static func typeSize(_ type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 1
        }
    }
}
