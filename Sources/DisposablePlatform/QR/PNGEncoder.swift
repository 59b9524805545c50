import CSystemZlib
import DisposableCore
import Foundation

/// The few bytes of the PNG format we need for QR codes: IHDR, one zlib-compressed IDAT, IEND.
package enum PNGEncoder {
    package static func encode(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, scanlines: [UInt8]) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [bitDepth, colorType, 0, 0, 0])  // compression, filter, no interlace
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", deflate(scanlines))
        png.appendChunk("IEND", Data())
        return png
    }

    private static func deflate(_ bytes: [UInt8]) -> Data {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&output, &length, bytes, uLong(bytes.count), 9)
        precondition(status == Z_OK, "zlib compress2 failed with \(status)")  // only fails on a too-small buffer
        return Data(output.prefix(Int(length)))
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func appendChunk(_ type: String, _ body: Data) {
        appendBigEndian(UInt32(body.count))
        let typed = Data(type.utf8) + body
        append(typed)
        let crc = typed.withUnsafeBytes { crc32(0, $0.bindMemory(to: Bytef.self).baseAddress, uInt(typed.count)) }
        appendBigEndian(UInt32(crc))
    }
}
