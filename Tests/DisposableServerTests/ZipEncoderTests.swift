import Foundation
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

@Suite("ZIP encoder (DL-2)")
struct ZipEncoderTests {
    @Test("Past 4 GB the archive switches to ZIP64 records, with offsets unzip can follow")
    func zip64() throws {
        // setup: four 1.5 GB entries — only headers are produced, no data
        let entries = (1...4).map {
            ZipEncoder.Entry(name: "Ana\($0).jpg", size: 1_500_000_000, modified: Date(timeIntervalSince1970: 1_781_980_200))
        }
        var encoder = ZipEncoder()
        var offsets: [Int64] = []
        var position: Int64 = 0
        for entry in entries {
            offsets.append(position)
            position += Int64(encoder.begin(entry).readableBytes) + entry.size
            position += Int64(encoder.end(crc: 0).readableBytes)
        }
        // MUT
        let tail = encoder.finish()
        // validate: the fourth entry starts past 4 GB, so its central record carries a ZIP64 offset
        #expect(offsets[3] > 0xFFFF_FFFF)
        let bytes = [UInt8](tail.readableBytesView)
        let zip64End = try #require(find(bytes, [0x50, 0x4B, 0x06, 0x06]))
        let locator = try #require(find(bytes, [0x50, 0x4B, 0x06, 0x07]))
        #expect(locator > zip64End)
        #expect(littleEndian(bytes, at: locator + 8, count: 8) == UInt64(position) + UInt64(zip64End))
        #expect(littleEndian(bytes, at: zip64End + 48, count: 8) == UInt64(position), "central directory offset")
        let extra = try #require(find(bytes, [0x01, 0x00, 0x08, 0x00]))
        #expect(littleEndian(bytes, at: extra + 4, count: 8) == UInt64(offsets[3]))
        #expect(ZipEncoder.length(of: entries) == position + Int64(bytes.count))
    }

    @Test("Small archives have no ZIP64 records")
    func small() {
        var encoder = ZipEncoder()
        _ = encoder.begin(.init(name: "a.jpg", size: 10, modified: Date()))
        _ = encoder.end(crc: 0)
        #expect(find([UInt8](encoder.finish().readableBytesView), [0x50, 0x4B, 0x06, 0x06]) == nil)
    }
}

private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
}

private func littleEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
    (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}
