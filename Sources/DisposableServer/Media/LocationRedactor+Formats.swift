import Foundation
import NIOCore

/// The walks, one per container format. Each returns false when the structure breaks off, and the file is
/// then searched instead (`searchAndBlank`).
extension LocationRedactor {
    private func u16be(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private func u32be(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    private func u32le(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }

    // MARK: JPEG

    private static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    private static let extendedXMPSignature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]

    /// The segments up to the first scan, then every APP1 of images embedded after it (MPF, depth maps):
    /// in entropy-coded data an FF is always followed by 00 or a restart marker, so an FF E1 there is a
    /// segment of another image.
    mutating func walkJPEG() -> Bool {
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
        }
    }

    private static let photoshopSignature = Array("Photoshop 3.0".utf8) + [0]

    /// Photoshop's APP13: image resources, of which 0x0422/0x0423 hold EXIF and 0x0424 XMP (issue 37, item 5).
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
    mutating func walkPNG() -> Bool {
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
                break
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

    // MARK: WebP

    mutating func walkWebP() -> Bool {
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

    // MARK: HEIC, AVIF (ISO base media files)

    private struct Box {
        let type: String
        let start: Int64
        let content: Int64
        let end: Int64
    }

    private func boxes(from start: Int64, to end: Int64) -> [Box]? {
        var list: [Box] = []
        var offset = start
        while offset + 8 <= end {
            guard let head = file.read(offset, 8) else { return nil }
            var size = Int64(u32be(head, 0))
            var content = offset + 8
            if size == 1 {
                guard let large = file.read(offset + 8, 8) else { return nil }
                size = Int64(u32be(large, 0)) << 32 | Int64(u32be(large, 4))
                content += 8
            } else if size == 0 {
                size = end - offset
            }
            guard size >= content - offset, offset + size <= end else { return nil }
            list.append(Box(type: String(decoding: head[4..<8], as: UTF8.self), start: offset, content: content, end: offset + size))
            offset += size
        }
        return list
    }

    /// The `meta` box's items: which are EXIF or XMP (`iinf`), and where their bytes are (`iloc`); or, in a video
    /// (a `moov` box), its location in QuickTime's and MP4's own places (`walkMovie`).
    mutating func walkISOBMFF() -> Bool {
        if let top = boxes(from: 0, to: file.size), let movie = top.first(where: { $0.type == "moov" }) { return walkMovie(movie) }
        guard let top = boxes(from: 0, to: file.size), let meta = top.first(where: { $0.type == "meta" }),
            let children = boxes(from: meta.content + 4, to: meta.end),
            let iinf = children.first(where: { $0.type == "iinf" }), let iloc = children.first(where: { $0.type == "iloc" }),
            let kinds = itemKinds(iinf), let locations = itemLocations(iloc)
        else { return false }
        for (item, kind) in kinds {
            guard let extents = locations[item] else { return false }
            guard extents.count == 1, let extent = extents.first, extent.method == 0 else {
                // In pieces, or inside the meta box's own data: no certain cleaning, so blank what lies in the file.
                for extent in extents where extent.method == 0 { blank(extent.offset, extent.length, with: 0) }
                if extents.contains(where: { $0.method != 0 }) { return false }
                continue
            }
            switch kind {
            case .exif: exif(extent.offset, extent.length, layout: .heif)
            case .xmp: xmp(extent.offset, extent.length)
            }
        }
        return true
    }

    private enum ItemKind { case exif, xmp }

    /// SOC-4: where phones put a video's location — `©xyz` in user data (QuickTime and Android), 3GPP's `loci`, and the
    /// location keys (`com.apple.quicktime.location.*`) of a `meta` box's item list — emptied in place, and XMP in a `uuid` or
    /// `XMP_` box cleaned; the boxes keep their sizes, so the file still plays and ranges hold.
    private mutating func walkMovie(_ movie: Box) -> Bool {
        let containers: Set<String> = ["moov", "trak", "udta", "mdia", "minf", "meta", "ilst"]
        var pending = [movie]
        var locationKeys: Set<UInt32> = []
        var visited = 0
        while let box = pending.popLast() {
            visited += 1
            guard visited < 10_000 else { return false }
            // A `meta` box is a full box (4 bytes of version and flags) in MP4, a plain one (`hdlr` first) in QuickTime.
            let plain = box.type != "meta" || file.read(box.content + 4, 4).map { Array($0) == Array("hdlr".utf8) } == true
            guard let children = boxes(from: box.content + (plain ? 0 : 4), to: box.end) else { return false }
            if let keys = children.first(where: { $0.type == "keys" }) { locationKeys = locationKeyIndexes(keys) }
            for child in children {
                let code = fourCC(child.start + 4)
                if code == Self.userDataLocation || child.type == "loci" || (box.type == "ilst" && locationKeys.contains(code)) {
                    blankValue(of: child, inItemList: box.type == "ilst")
                } else if child.type == "XMP_" || child.type == "uuid" {
                    xmp(child.content, Int(child.end - child.content))
                } else if containers.contains(child.type) {
                    pending.append(child)
                }
            }
        }
        return true
    }

    /// The 1-based indexes of the `keys` box's location keys.
    private func locationKeyIndexes(_ keys: Box) -> Set<UInt32> {
        guard let head = file.read(keys.content, 8) else { return [] }
        var indexes: Set<UInt32> = []
        var offset = keys.content + 8
        for index in 1...max(1, min(Int(u32be(head, 4)), 1000)) {
            guard let entry = file.read(offset, 8) else { break }
            let size = Int64(u32be(entry, 0))
            guard size >= 8, offset + size <= keys.end, let name = file.read(offset + 8, Int(min(size - 8, 200))) else { break }
            if String(decoding: name, as: UTF8.self).lowercased().contains("location") { indexes.insert(UInt32(index)) }
            offset += size
        }
        return indexes
    }

    /// `©xyz` (its first byte is not UTF-8, so it is compared as a number).
    private static let userDataLocation: UInt32 = 0xA978_797A

    private func fourCC(_ offset: Int64) -> UInt32 {
        file.read(offset, 4).map { UInt32(u32be($0, 0)) } ?? 0
    }

    /// Empties a location: in an item list, the value of each `data` box (after its type and locale); in user data, the
    /// text after its length and language.
    private mutating func blankValue(of box: Box, inItemList: Bool) {
        guard inItemList else { return blank(box.content, Int(box.end - box.content), with: 0) }
        for data in boxes(from: box.content, to: box.end) ?? [] where data.type == "data" && data.end - data.content > 8 {
            blank(data.content + 8, Int(data.end - data.content - 8), with: 0x20)
        }
    }

    private func itemKinds(_ iinf: Box) -> [Int: ItemKind]? {
        guard let head = file.read(iinf.content, 8) else { return nil }
        let version = head[0]
        let first = iinf.content + (version == 0 ? 6 : 8)
        guard let entries = boxes(from: first, to: iinf.end) else { return nil }
        var kinds: [Int: ItemKind] = [:]
        for infe in entries where infe.type == "infe" {
            guard let body = file.read(infe.content, Int(min(infe.end - infe.content, 512))), body.count >= 12, body[0] >= 2 else { continue }
            let wide = body[0] == 3
            let id = wide ? u32be(body, 4) : u16be(body, 4)
            let typeAt = wide ? 10 : 8
            guard body.count >= typeAt + 4 else { continue }
            let type = String(decoding: body[typeAt..<(typeAt + 4)], as: UTF8.self)
            if type == "Exif" {
                kinds[id] = .exif
            } else if type == "mime" {
                let strings = body[(typeAt + 4)...].split(separator: 0, omittingEmptySubsequences: false)
                if strings.count >= 2, String(decoding: strings[1], as: UTF8.self).hasPrefix("application/rdf+xml") { kinds[id] = .xmp }
            }
        }
        return kinds
    }

    private struct Extent {
        let method: Int
        let offset: Int64
        let length: Int
    }

    private func itemLocations(_ iloc: Box) -> [Int: [Extent]]? {
        guard let body = file.read(iloc.content, Int(min(iloc.end - iloc.content, 1 << 20))), body.count >= 8 else { return nil }
        let version = body[0]
        let offsetSize = Int(body[4] >> 4), lengthSize = Int(body[4] & 0x0F), baseSize = Int(body[5] >> 4)
        let indexSize = version >= 1 ? Int(body[5] & 0x0F) : 0
        var index = 6
        func number(_ size: Int) -> Int? {
            guard [0, 2, 4, 8].contains(size), index + size <= body.count else { return nil }
            var value = 0
            for _ in 0..<size {
                value = value << 8 | Int(body[index])
                index += 1
            }
            return value
        }
        guard let count = number(version < 2 ? 2 : 4) else { return nil }
        var locations: [Int: [Extent]] = [:]
        for _ in 0..<count {
            guard let id = number(version < 2 ? 2 : 4) else { return nil }
            var method = 0
            if version >= 1 {
                guard let field = number(2) else { return nil }
                method = field & 0x0F
            }
            guard number(2) != nil, let base = number(baseSize), let extentCount = number(2) else { return nil }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { guard number(indexSize) != nil else { return nil } }
                guard let offset = number(offsetSize), let length = number(lengthSize) else { return nil }
                extents.append(Extent(method: method, offset: Int64(base + offset), length: length))
            }
            locations[id] = extents
        }
        return locations
    }

    // MARK: GIF

    /// Extensions: an application extension "XMP DataXMP" (the packet written raw, then a "magic trailer"
    /// that makes it read as sub-blocks) is replaced by empty sub-blocks of the same total length.
    mutating func walkGIF() -> Bool {
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
