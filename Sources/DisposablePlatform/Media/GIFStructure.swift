/// A GIF's blocks, followed from the file: its frames (libvips stops counting at 4,097, so a file of 12,000
/// tiny frames would pass a check on its reported size) and its XMP, which the location
/// redaction replaces.
import DisposableCore

package struct GIFStructure {
    /// Image descriptors.
    package private(set) var frames = 0
    /// Where each "XMP DataXMP" application extension's data lies: after its identifier block, up to and
    /// including its terminator.
    package private(set) var xmpData: [Range<Int64>] = []
    /// Whether the trailer was reached; false when the blocks broke off (or the data simply ended).
    package private(set) var complete = false

    /// Nil when the blocks break off in a way no decoder would read past.
    package init?(_ file: FileBytes) {
        guard let screen = file.read(6, 7) else { return nil }
        var offset: Int64 = 13
        if screen[4] & 0x80 != 0 { offset += 3 * (Int64(1) << (Int64(screen[4] & 0x07) + 1)) }
        while let introducer = file.read(offset, 1)?.first {
            switch introducer {
            case 0x3B:
                complete = true
                return
            case 0x21:
                guard let label = file.read(offset + 1, 1)?.first else { return nil }
                offset += 2
                var isXMP = false
                if label == 0xFF, let identifier = file.read(offset, 12), identifier[0] == 11 {
                    isXMP = Array(identifier[1..<12]) == Array("XMP DataXMP".utf8)
                }
                guard let next = Self.skipSubBlocks(file, from: offset) else { return nil }
                if isXMP { xmpData.append((offset + 12)..<next) }
                offset = next
            case 0x2C:
                guard let descriptor = file.read(offset, 10) else { return nil }
                frames += 1
                offset += 10
                if descriptor[9] & 0x80 != 0 { offset += 3 * (Int64(1) << (Int64(descriptor[9] & 0x07) + 1)) }
                guard let next = Self.skipSubBlocks(file, from: offset + 1) else { return nil }
                offset = next
            default:
                return nil
            }
        }
    }

    /// The frames of the GIF at `path`; nil when its blocks break off.
    package static func frames(fileAt path: String) throws -> Int? {
        GIFStructure(try FileBytes(path: path))?.frames
    }

    /// Follows data sub-blocks to their terminator; returns the offset after it.
    private static func skipSubBlocks(_ file: FileBytes, from start: Int64) -> Int64? {
        var offset = start
        while let length = file.read(offset, 1)?.first {
            if length == 0 { return offset + 1 }
            offset += 1 + Int64(length)
        }
        return nil
    }
}
