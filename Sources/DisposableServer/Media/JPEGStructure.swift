import Foundation

/// Walks a JPEG's marker segments to its end-of-image marker. libjpeg happily decodes a valid header
/// followed by junk (it reads the junk as picture data), so a JPEG is only accepted whole: every
/// segment in place and an EOI after the last scan. Bytes after the EOI (a ZIP, a vendor trailer) are
/// not part of the image and are ignored, as decoders do.
enum JPEGStructure {
    static func isComplete(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let b = bytes.bindMemory(to: UInt8.self)
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return false }
        var i = 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else { return false }
            let marker = b[i + 1]
            switch marker {
            case 0xFF:  // fill byte
                i += 1
            case 0xD9:  // EOI
                return true
            case 0x01, 0xD0...0xD7:  // markers without a length
                i += 2
            default:
                guard i + 3 < b.count else { return false }
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                guard length >= 2 else { return false }
                i += 2 + length
                if marker == 0xDA {
                    // Entropy-coded data: runs until a marker that is neither stuffing (FF 00) nor a restart.
                    while i + 1 < b.count && !(b[i] == 0xFF && b[i + 1] != 0x00 && !(0xD0...0xD7).contains(b[i + 1])) {
                        i += 1
                    }
                }
            }
        }
        return false
    }

    static func isComplete(file path: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        return data.withUnsafeBytes { isComplete($0) }
    }
}
