/// Counts a GIF's frames from its blocks. libvips stops counting at 4,097, so a file of 12,000 tiny frames
/// would pass a check on its reported size and still cost every frame's decoding (issue 19, item 10).
enum GIFFrames {
    /// The number of image descriptors; nil when the block structure breaks off before the trailer.
    static func count(fileAt path: String) throws -> Int? {
        let file = try FileBytes(path: path)
        guard let screen = file.read(6, 7) else { return nil }
        var offset: Int64 = 13
        if screen[4] & 0x80 != 0 { offset += 3 * (Int64(1) << (Int64(screen[4] & 0x07) + 1)) }
        var frames = 0
        while let introducer = file.read(offset, 1)?.first {
            switch introducer {
            case 0x3B:
                return frames
            case 0x21:
                guard let next = skipSubBlocks(file, from: offset + 2) else { return nil }
                offset = next
            case 0x2C:
                guard let descriptor = file.read(offset, 10) else { return nil }
                frames += 1
                offset += 10
                if descriptor[9] & 0x80 != 0 { offset += 3 * (Int64(1) << (Int64(descriptor[9] & 0x07) + 1)) }
                guard let next = skipSubBlocks(file, from: offset + 1) else { return nil }
                offset = next
            default:
                return nil
            }
        }
        // No trailer: decoders stop at the end of the data, as the frames counted so far.
        return frames
    }

    private static func skipSubBlocks(_ file: FileBytes, from start: Int64) -> Int64? {
        var offset = start
        while let length = file.read(offset, 1)?.first {
            if length == 0 { return offset + 1 }
            offset += 1 + Int64(length)
        }
        return nil
    }
}
