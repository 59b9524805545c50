import CSystemZlib
import DisposableCore
import Foundation
import NIOCore

/// Encodes a ZIP archive as a stream (DL-2): entries are stored (photos do not compress), each followed
/// by a data descriptor with its CRC-32, so nothing is buffered; ZIP64 records appear once the archive
/// passes 4 GB. The caller writes each entry's bytes between `begin` and `end`.
package struct ZipEncoder {
    package struct Entry: Sendable {
        package let name: String
        package let size: Int64
        package let modified: Date

        package init(name: String, size: Int64, modified: Date) {
            self.name = name
            self.size = size
            self.modified = modified
        }
    }

    private var offset: Int64 = 0
    private var central = ByteBuffer()
    private var count = 0
    private var current: (entry: Entry, headerOffset: Int64)?

    package init() {}

    /// The local header of `entry`; its bytes follow.
    package mutating func begin(_ entry: Entry) -> ByteBuffer {
        precondition(current == nil, "end the previous entry first")
        current = (entry, offset)
        let (dosTime, dosDate) = Self.dosDateTime(entry.modified)
        var local = ByteBuffer()
        local.writeLE(UInt32(0x0403_4B50))
        local.writeLE(UInt16(20))  // version needed
        local.writeLE(UInt16(0x0808))  // a data descriptor follows; the name is UTF-8
        local.writeLE(UInt16(0))  // stored
        local.writeLE(dosTime)
        local.writeLE(dosDate)
        local.writeLE(UInt32(0))  // CRC and sizes: in the data descriptor
        local.writeLE(UInt32(0))
        local.writeLE(UInt32(0))
        local.writeLE(UInt16(entry.name.utf8.count))
        local.writeLE(UInt16(9))
        local.writeString(entry.name)
        Self.writeTimestampExtra(&local, entry.modified)
        offset += Int64(local.readableBytes) + entry.size
        return local
    }

    /// The data descriptor of the entry just written, with the CRC-32 of its bytes.
    package mutating func end(crc: UInt32) -> ByteBuffer {
        guard let (entry, headerOffset) = current else { preconditionFailure("begin an entry first") }
        current = nil
        count += 1
        var descriptor = ByteBuffer()
        descriptor.writeLE(UInt32(0x0807_4B50))
        descriptor.writeLE(crc)
        descriptor.writeLE(UInt32(entry.size))  // photos are far below 4 GB each
        descriptor.writeLE(UInt32(entry.size))
        offset += Int64(descriptor.readableBytes)

        let (dosTime, dosDate) = Self.dosDateTime(entry.modified)
        let needsZip64 = headerOffset >= 0xFFFF_FFFF
        central.writeLE(UInt32(0x0201_4B50))
        central.writeLE(UInt16(0x0314))  // made by: Unix, 2.0
        central.writeLE(UInt16(needsZip64 ? 45 : 20))
        central.writeLE(UInt16(0x0808))
        central.writeLE(UInt16(0))
        central.writeLE(dosTime)
        central.writeLE(dosDate)
        central.writeLE(crc)
        central.writeLE(UInt32(entry.size))
        central.writeLE(UInt32(entry.size))
        central.writeLE(UInt16(entry.name.utf8.count))
        central.writeLE(UInt16(9 + (needsZip64 ? 12 : 0)))
        central.writeLE(UInt16(0))  // comment
        central.writeLE(UInt16(0))  // disk
        central.writeLE(UInt16(0))  // internal attributes
        central.writeLE(UInt32(0o100644 << 16))  // a regular file, rw-r--r--
        central.writeLE(needsZip64 ? UInt32(0xFFFF_FFFF) : UInt32(headerOffset))
        central.writeString(entry.name)
        Self.writeTimestampExtra(&central, entry.modified)
        if needsZip64 {
            central.writeLE(UInt16(0x0001))
            central.writeLE(UInt16(8))
            central.writeLE(UInt64(headerOffset))
        }
        return descriptor
    }

    /// The central directory and the end records.
    package mutating func finish() -> ByteBuffer {
        let centralOffset = offset
        let centralSize = Int64(central.readableBytes)
        var tail = central
        let zip64 = centralOffset >= 0xFFFF_FFFF || count >= 0xFFFF
        if zip64 {
            let zip64EndOffset = centralOffset + centralSize
            tail.writeLE(UInt32(0x0606_4B50))
            tail.writeLE(UInt64(44))
            tail.writeLE(UInt16(45))
            tail.writeLE(UInt16(45))
            tail.writeLE(UInt32(0))
            tail.writeLE(UInt32(0))
            tail.writeLE(UInt64(count))
            tail.writeLE(UInt64(count))
            tail.writeLE(UInt64(centralSize))
            tail.writeLE(UInt64(centralOffset))
            tail.writeLE(UInt32(0x0706_4B50))  // ZIP64 locator
            tail.writeLE(UInt32(0))
            tail.writeLE(UInt64(zip64EndOffset))
            tail.writeLE(UInt32(1))
        }
        tail.writeLE(UInt32(0x0605_4B50))
        tail.writeLE(UInt16(0))
        tail.writeLE(UInt16(0))
        tail.writeLE(zip64 ? UInt16(0xFFFF) : UInt16(count))
        tail.writeLE(zip64 ? UInt16(0xFFFF) : UInt16(count))
        tail.writeLE(UInt32(min(centralSize, 0xFFFF_FFFF)))
        tail.writeLE(zip64 ? UInt32(0xFFFF_FFFF) : UInt32(centralOffset))
        tail.writeLE(UInt16(0))
        offset += Int64(tail.readableBytes)
        return tail
    }

    /// The exact length of an archive of `entries`, known before the first byte is sent.
    package static func length(of entries: [Entry]) -> Int64 {
        var encoder = ZipEncoder()
        var total: Int64 = 0
        for entry in entries {
            total += Int64(encoder.begin(entry).readableBytes) + entry.size
            total += Int64(encoder.end(crc: 0).readableBytes)
        }
        return total + Int64(encoder.finish().readableBytes)
    }

    /// CRC-32 of the bytes written so far, as ZIP wants it.
    package static func crc(_ crc: UInt32, _ chunk: ByteBuffer) -> UInt32 {
        chunk.withUnsafeReadableBytes { UInt32(crc32(uLong(crc), $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count))) }
    }

    /// The entry date as MS-DOS time and date (2-second precision, no time zone: we use UTC).
    package static func dosDateTime(_ date: Date) -> (UInt16, UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = max(1980, min(2107, c.year ?? 1980))
        let time = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        let day = UInt16((year - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        return (time, day)
    }

    /// The "UT" extra field: the exact modification time as Unix seconds, which unzip prefers.
    package static func writeTimestampExtra(_ buffer: inout ByteBuffer, _ date: Date) {
        buffer.writeLE(UInt16(0x5455))
        buffer.writeLE(UInt16(5))
        buffer.writeInteger(UInt8(1))
        buffer.writeLE(UInt32(truncatingIfNeeded: Int64(date.timeIntervalSince1970)))
    }
}

extension ByteBuffer {
    fileprivate mutating func writeLE<T: FixedWidthInteger>(_ value: T) {
        writeInteger(value, endianness: .little)
    }
}
