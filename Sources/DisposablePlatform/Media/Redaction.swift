import DisposableCore
import Foundation
import NIOCore

/// What to change in an original before anyone but its shooter gets it (MED-2): byte patches, each the
/// same length as what it covers, so the file keeps its size, every offset in it stays valid, ranges can be
/// served, and the picture's bytes are never touched. `LocationRedactor` works them out from the file.
package struct Redaction: Sendable, Equatable {
    package struct Patch: Sendable, Equatable {
        package let offset: Int64
        package let bytes: [UInt8]

        package init(offset: Int64, bytes: [UInt8]) {
            self.offset = offset
            self.bytes = bytes
        }
    }

    package private(set) var patches: [Patch] = []

    package init(patches: [Patch] = []) {
        self.patches = patches
    }

    package mutating func replace(at offset: Int64, with bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        patches.append(Patch(offset: offset, bytes: bytes))
    }

    package mutating func fill(_ offset: Int64, _ length: Int, with byte: UInt8) {
        replace(at: offset, with: [UInt8](repeating: byte, count: max(0, length)))
    }

    /// Applies the patches that fall in `buffer`, whose first byte is the file's byte `offset`.
    package func apply(to buffer: inout ByteBuffer, at offset: Int64) {
        let end = offset + Int64(buffer.readableBytes)
        for patch in patches {
            let patchEnd = patch.offset + Int64(patch.bytes.count)
            guard patch.offset < end, patchEnd > offset else { continue }
            let from = max(patch.offset, offset)
            let to = min(patchEnd, end)
            let slice = patch.bytes[Int(from - patch.offset)..<Int(to - patch.offset)]
            buffer.setBytes(slice, at: buffer.readerIndex + Int(from - offset))
        }
    }

    /// Applies the patches to a whole file's bytes (tests, and files held in memory).
    package func apply(to bytes: inout [UInt8]) {
        for patch in patches where patch.offset >= 0 && patch.offset + Int64(patch.bytes.count) <= Int64(bytes.count) {
            bytes.replaceSubrange(Int(patch.offset)..<Int(patch.offset) + patch.bytes.count, with: patch.bytes)
        }
    }
}
