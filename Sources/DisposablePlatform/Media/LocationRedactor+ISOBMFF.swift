import DisposableCore
import Foundation
import NIOCore

/// HEIC and AVIF (ISO base media files): the walk through their boxes to the Exif and XMP items.
extension LocationRedactor {
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
    package mutating func walkISOBMFF() -> Bool {
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
}
