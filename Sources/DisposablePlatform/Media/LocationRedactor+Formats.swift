import DisposableCore
import Foundation
import NIOCore

/// The walks, one per container format. Each returns false when the structure breaks off, and the file is
/// then searched instead (`searchAndBlank`).
extension LocationRedactor {
    package func u16be(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    package func u32be(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    package func u32le(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }

    // MARK: JPEG

    private static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    private static let extendedXMPSignature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]

    /// The segments up to the first scan, then every APP1 of images embedded after it (MPF, depth maps):
    /// in entropy-coded data an FF is always followed by 00 or a restart marker, so an FF E1 there is a
    /// segment of another image.
    package mutating func walkJPEG() -> Bool {
        var offset: Int64 = 2
        while true {
            guard let head = file.read(offset, 4), head[0] == 0xFF else { return false }
            let marker = head[1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            if marker == 0xD9 { return true }
            let length = u16be(head, 2)
            guard length >= 2 else { return false }
            if marker == 0xE1 { app1(payload: offset + 4, length: length - 2) }
            if marker == 0xED { app13(payload: offset + 4, length: length - 2) }
            offset += 2 + Int64(length)
            if marker == 0xDA { break }
        }
        // After the first scan: look for APP1 segments of embedded images.
        let window = 1 << 20
        while offset < file.size {
            guard let bytes = file.read(offset, Int(min(Int64(window + 3), file.size - offset))) else { return true }
            for index in Self.occurrences(of: [0xFF, 0xE1], in: bytes) where index + 4 <= bytes.count && index < window {
                let length = u16be(bytes, index + 2)
                if length >= 2 { app1(payload: offset + Int64(index + 4), length: length - 2) }
            }
            for index in Self.occurrences(of: [0xFF, 0xED], in: bytes) where index + 4 <= bytes.count && index < window {
                let length = u16be(bytes, index + 2)
                if length >= 2 { app13(payload: offset + Int64(index + 4), length: length - 2) }
            }
            offset += Int64(window)
        }
        return true
    }

    private mutating func app1(payload: Int64, length: Int) {
        guard let start = file.read(payload, min(length, Self.extendedXMPSignature.count)) else { return }
        if start.starts(with: Array("Exif".utf8) + [0, 0]) {
            exif(payload, length)
        } else if start.starts(with: Self.xmpSignature) {
            xmp(payload + Int64(Self.xmpSignature.count), length - Self.xmpSignature.count)
        } else if start.starts(with: Self.extendedXMPSignature) {
            // Pieces of one packet split at arbitrary bytes: a property may straddle two. Blanked whole.
            blank(payload + Int64(Self.extendedXMPSignature.count), length - Self.extendedXMPSignature.count, with: 0x20)
        } else {
            // Anything else readers may still take for EXIF or XMP (Kodak's `Exif\0\xFF`, a prefix before `Exif`,
            // `XMP\0`, a bare `<?xpacket`, the XMP header without its NUL…): not rewritten, so blanked whole.
            blank(payload, length, with: 0)
        }
    }

    private static let photoshopSignature = Array("Photoshop 3.0".utf8) + [0]

    /// Photoshop's APP13: image resources, of which 0x0422/0x0423 hold EXIF and 0x0424 XMP.
    /// Each is cleaned like its own kind of block; resources that cannot be walked for certain are blanked whole.
    private mutating func app13(payload: Int64, length: Int) {
        let signature = Self.photoshopSignature
        guard length >= signature.count, let start = file.read(payload, signature.count), start == signature else { return }
        let resources = payload + Int64(signature.count)
        let size = length - signature.count
        guard size <= Self.blockLimit, let bytes = file.read(resources, size) else { return blank(resources, size, with: 0) }
        var index = 0
        while index < bytes.count {
            if bytes[index...].allSatisfy({ $0 == 0 }) { return }  // padding
            guard index + 12 <= bytes.count, bytes[index..<(index + 4)].elementsEqual("8BIM".utf8) else {
                return blank(resources, size, with: 0)
            }
            let id = u16be(bytes, index + 4)
            let nameLength = Int(bytes[index + 6])
            var cursor = index + 7 + nameLength + ((1 + nameLength) % 2)
            guard cursor + 4 <= bytes.count else { return blank(resources, size, with: 0) }
            let dataLength = u32be(bytes, cursor)
            cursor += 4
            guard dataLength <= bytes.count - cursor else { return blank(resources, size, with: 0) }
            switch id {
            case 0x0422, 0x0423: exif(resources + Int64(cursor), dataLength)
            case 0x0424: xmp(resources + Int64(cursor), dataLength)
            default: break
            }
            index = cursor + dataLength + dataLength % 2
        }
    }

    // MARK: PNG

    /// Chunks: eXIf cleaned in place; XMP in an uncompressed iTXt cleaned in place; XMP compressed, or EXIF
    /// as ImageMagick's hex text, blanked and renamed to a private ancillary chunk every decoder skips.
    /// Each changed chunk gets its CRC again.
    package mutating func walkPNG() -> Bool {
        var offset: Int64 = 8
        while true {
            guard let head = file.read(offset, 8) else { return false }
            let length = u32be(head, 0)
            let type = String(decoding: head[4..<8], as: UTF8.self)
            let data = offset + 8
            guard data + Int64(length) + 4 <= file.size else { return false }
            let before = redaction.patches.count
            var renamed = false
            switch type {
            case "eXIf":
                exif(data, length)
            case "iTXt", "tEXt", "zTXt":
                let keywordLength = min(length, 80)
                guard let keyword = file.read(data, keywordLength).map({ Array($0.prefix { $0 != 0 }) }) else { return false }
                let name = String(decoding: keyword, as: UTF8.self)
                if name == "XML:com.adobe.xmp", type == "iTXt", let flags = file.read(data + Int64(keyword.count) + 1, 2), flags[0] == 0 {
                    // keyword\0, compression flag and method, language\0, translated keyword\0, then the text
                    let headerLimit = min(length, keyword.count + 3 + 2 * 256)
                    guard let header = file.read(data, headerLimit) else { return false }
                    var index = keyword.count + 3
                    for _ in 0..<2 {
                        guard let end = header[index...].firstIndex(of: 0) else { return false }
                        index = end + 1
                    }
                    xmp(data + Int64(index), length - index)
                } else if name == "XML:com.adobe.xmp" || name.hasPrefix("Raw profile type") {
                    blank(data, length, with: 0)
                    redaction.replace(at: offset + 4, with: Array("diSp".utf8))
                    renamed = true
                }
            case "IEND":
                return true
            default:
                // An ancillary chunk that only describes the pixels stays; any other (`exIf`, `tXMP`, a private
                // one readers might still take for metadata) is blanked and renamed, as the pixels never need it.
                if head[4] & 0x20 != 0, !Self.pixelChunks.contains(type) {
                    blank(data, length, with: 0)
                    redaction.replace(at: offset + 4, with: Array("diSp".utf8))
                    renamed = true
                }
            }
            if redaction.patches.count != before {
                guard let chunk = file.read(offset + 4, 4 + length) else { return false }
                var patched = chunk
                var local = Redaction()
                for patch in redaction.patches[before...] { local.replace(at: patch.offset - (offset + 4), with: patch.bytes) }
                local.apply(to: &patched)
                if renamed { patched.replaceSubrange(0..<4, with: Array("diSp".utf8)) }
                let crc = ZipEncoder.crc(0, ByteBuffer(bytes: patched))
                redaction.replace(
                    at: data + Int64(length), with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
            }
            offset = data + Int64(length) + 4
        }
    }

    /// Ancillary PNG chunks about how the pixels look or move (colour, transparency, density, animation), and the
    /// private name blanked chunks get.
    private static let pixelChunks: Set<String> = [
        "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "mDCV", "mDCv", "cLLI", "cLLi", "sBIT", "bKGD", "hIST", "tRNS", "pHYs", "sPLT", "tIME",
        "acTL", "fcTL", "fdAT", "oFFs", "pCAL", "sCAL", "diSp",
    ]

    // MARK: WebP

    package mutating func walkWebP() -> Bool {
        guard let header = file.read(4, 4) else { return false }
        let end = min(file.size, 8 + Int64(u32le(header, 0)))
        var offset: Int64 = 12
        while offset + 8 <= end {
            guard let head = file.read(offset, 8) else { return false }
            let length = u32le(head, 4)
            let data = offset + 8
            guard data + Int64(length) <= end else { return false }
            switch String(decoding: head[0..<4], as: UTF8.self) {
            case "EXIF": exif(data, length)
            case "XMP ": xmp(data, length)
            default: break
            }
            offset = data + Int64(length) + Int64(length & 1)
        }
        return true
    }

    // MARK: GIF

    /// Extensions: an application extension "XMP DataXMP" (the packet written raw, then a "magic trailer"
    /// that makes it read as sub-blocks) is replaced by empty sub-blocks of the same total length.
    package mutating func walkGIF() -> Bool {
        guard let gif = GIFStructure(file), gif.complete else { return false }
        for data in gif.xmpData { emptySubBlocks(from: data.lowerBound, to: data.upperBound) }
        return true
    }

    /// Zero-filled sub-blocks and a terminator exactly filling `start..<end`.
    private mutating func emptySubBlocks(from start: Int64, to end: Int64) {
        var bytes: [UInt8] = []
        var remaining = Int(end - start) - 1  // the terminator
        guard remaining >= 0 else { return }
        while remaining > 0 {
            // Never leave a single byte, which no block can fill.
            let length = remaining > 256 ? (remaining - 256 == 1 ? 253 : 255) : max(0, remaining - 1)
            guard length > 0 else { break }
            bytes += [UInt8(length)] + [UInt8](repeating: 0, count: length)
            remaining -= 1 + length
        }
        guard remaining == 0 else { return blank(start, Int(end - start), with: 0) }
        redaction.replace(at: start, with: bytes + [0])
    }
}
