import Crypto
import DisposableCore
import Foundation
import NIOCore

/// How an encrypted blob is laid out: a 32-byte header — `DSPSEAL1`, a random 16-byte salt, the plaintext's length
/// (8 bytes, big-endian) — then the plaintext in segments of 64 KiB, each sealed with AES-256-GCM (its 16-byte tag
/// after it). Each blob has its own key (HKDF-SHA256 of the storage key and the salt); a segment's nonce is its
/// number, and its associated data the blob's storage key and the plaintext's length. So a Range read opens only the
/// segments it needs, and a segment moved within or between blobs, a changed length, or a truncated blob fails to
/// open — the reader gets an error, never wrong bytes.
package struct SealedBlob {
    package static let magic = Array("DSPSEAL1".utf8)
    package static let headerSize = 32
    package static let segmentSize = 64 * 1024
    package static let tagSize = 16
    package static var sealedSegmentSize: Int { segmentSize + tagSize }

    package let blobKey: SymmetricKey
    package let length: Int64
    package let associated: Data

    /// A new blob's sealing, with a fresh salt; `header` is what goes first.
    package static func new(storageKey: StorageKey, key: String, length: Int64) -> (SealedBlob, header: [UInt8]) {
        var salt = [UInt8](repeating: 0, count: 16)
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255) }
        let header = magic + salt + bigEndian(length)
        return (SealedBlob(storageKey: storageKey, key: key, salt: salt, length: length), header)
    }

    /// The sealing a header describes; nil when the bytes are not a sealed blob's header (a blob written before
    /// encryption was turned on).
    package static func opening(_ header: [UInt8], storageKey: StorageKey, key: String) -> SealedBlob? {
        guard let length = length(ofHeader: header) else { return nil }
        return SealedBlob(storageKey: storageKey, key: key, salt: Array(header[8..<24]), length: length)
    }

    /// The plaintext's length a sealed blob's header gives; nil when it is not one.
    package static func length(ofHeader header: [UInt8]) -> Int64? {
        guard header.count >= headerSize, Array(header[0..<8]) == magic else { return nil }
        let length = header[24..<32].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return length >= 0 ? length : nil
    }

    private init(storageKey: StorageKey, key: String, salt: [UInt8], length: Int64) {
        blobKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: storageKey.key, salt: salt, info: Data("disposable blob v1".utf8), outputByteCount: 32)
        self.length = length
        associated = Data(key.utf8) + Data(Self.bigEndian(length))
    }

    package static func isSealed(_ header: [UInt8]) -> Bool { header.count >= 8 && Array(header[0..<8]) == magic }

    /// How many segments the plaintext takes (an empty one still has one, so its tag vouches for the length).
    package var segmentCount: Int64 { max(1, (length + Int64(Self.segmentSize) - 1) / Int64(Self.segmentSize)) }

    /// The size of the whole sealed blob.
    package var sealedSize: Int64 { Int64(Self.headerSize) + length + segmentCount * Int64(Self.tagSize) }

    /// Where segment `index` starts in the sealed blob, and how long it is sealed.
    package func span(of index: Int64) -> (offset: Int64, count: Int) {
        let plain = Int(min(Int64(Self.segmentSize), length - index * Int64(Self.segmentSize)))
        return (Int64(Self.headerSize) + index * Int64(Self.sealedSegmentSize), max(0, plain) + Self.tagSize)
    }

    package func seal(_ plaintext: some DataProtocol, index: Int64) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: blobKey, nonce: nonce(index), authenticating: associated)
        return box.ciphertext + box.tag
    }

    package func open(_ sealed: some DataProtocol, index: Int64) throws -> Data {
        let bytes = Data(sealed)
        guard bytes.count >= Self.tagSize else { throw Unreadable() }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: nonce(index), ciphertext: bytes.prefix(bytes.count - Self.tagSize), tag: bytes.suffix(Self.tagSize))
            return try AES.GCM.open(box, using: blobKey, authenticating: associated)
        } catch {
            throw Unreadable()
        }
    }

    private func nonce(_ index: Int64) throws -> AES.GCM.Nonce {
        try AES.GCM.Nonce(data: [0, 0, 0, 0] + Self.bigEndian(index))
    }

    /// `data` sealed whole, header first.
    package static func sealed(_ data: Data, storageKey: StorageKey, key: String) throws -> Data {
        let (blob, header) = new(storageKey: storageKey, key: key, length: Int64(data.count))
        var sealed = Data(header)
        sealed.reserveCapacity(Int(blob.sealedSize))
        for index in 0..<blob.segmentCount {
            let from = Int(index) * segmentSize
            sealed += try blob.seal(data[(data.startIndex + from)..<(data.startIndex + min(data.count, from + segmentSize))], index: index)
        }
        return sealed
    }

    /// A whole sealed blob opened; nil when `bytes` are not sealed (written before encryption was on).
    package static func opened(_ bytes: [UInt8], storageKey: StorageKey, key: String) throws -> Data? {
        guard let blob = opening(bytes, storageKey: storageKey, key: key) else { return nil }
        guard Int64(bytes.count) == blob.sealedSize else { throw Unreadable() }
        var opened = Data()
        opened.reserveCapacity(Int(blob.length))
        for index in 0..<blob.segmentCount {
            let span = blob.span(of: index)
            opened += try blob.open(bytes[Int(span.offset)..<(Int(span.offset) + span.count)], index: index)
        }
        return opened
    }

    /// `count` bytes of an open file from `offset`; a file that ends before them is a blob cut short.
    package static func read(_ fd: Int32, at offset: Int64, _ count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw Unreadable() }
            done += got
        }
        return buffer
    }

    package static func bigEndian(_ value: Int64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// A sealed blob that does not open: another key, or bytes changed, moved or cut off.
    package struct Unreadable: Error, CustomStringConvertible {
        package init() {}

        package var description: String {
            "A stored file does not decrypt with the storage key: it was changed, cut short, or sealed with another key."
        }
    }
}
