import DisposableCore
import DisposablePlatform
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An unfinished upload's bytes, sealed at rest when the storage key is set (`--storage-key-file`): nothing of a
/// photo sent in pieces is readable in the uploads' folder. The file is a run of records, each a `SealedBlob` of at
/// most one segment with a salt of its own, bound to the upload and to where its bytes start — so bytes appended
/// later are never sealed twice under one key and nonce, a record moved or cut off does not open, and what follows
/// the last acknowledged byte can be found and dropped.
package struct StagedSealing: Sendable {
    package let storageKey: StorageKey

    /// `plain` (at most a segment) as the record that holds the upload's bytes from `offset`.
    package func record(_ plain: some DataProtocol, uploadID: String, offset: Int64) throws -> Data {
        let (blob, header) = SealedBlob.new(storageKey: storageKey, key: Self.key(uploadID, offset), length: Int64(plain.count))
        return Data(header) + (try blob.seal(plain, index: 0))
    }

    /// `plain` as records from `offset`, one per segment.
    package func records(_ plain: Data, uploadID: String, offset: Int64) throws -> Data {
        var sealed = Data()
        var start = plain.startIndex
        while start < plain.endIndex {
            let end = min(plain.endIndex, start + SealedBlob.segmentSize)
            sealed += try record(plain[start..<end], uploadID: uploadID, offset: offset + Int64(start - plain.startIndex))
            start = end
        }
        return sealed
    }

    /// Where in the file the upload's byte `offset` begins (after the records that hold the bytes before it).
    package func fileOffset(of offset: Int64, in fd: Int32) throws -> Int64 {
        var (plain, position): (Int64, Int64) = (0, 0)
        while plain < offset {
            let header = try SealedBlob.read(fd, at: position, SealedBlob.headerSize)
            guard let length = SealedBlob.length(ofHeader: header), length > 0 else {
                throw SealedBlob.Unreadable()
            }
            plain += length
            position += Int64(SealedBlob.headerSize + SealedBlob.tagSize) + length
        }
        guard plain == offset else { throw SealedBlob.Unreadable() }
        return position
    }

    /// Opens the first `length` bytes of the upload, record by record, in order.
    package func open(_ fd: Int32, uploadID: String, length: Int64, _ consume: (Data) throws -> Void) throws {
        var (plain, position): (Int64, Int64) = (0, 0)
        while plain < length {
            let header = try SealedBlob.read(fd, at: position, SealedBlob.headerSize)
            guard let blob = SealedBlob.opening(header, storageKey: storageKey, key: Self.key(uploadID, plain)),
                blob.length > 0, blob.length <= SealedBlob.segmentSize
            else { throw SealedBlob.Unreadable() }
            let sealed = try SealedBlob.read(fd, at: position + Int64(SealedBlob.headerSize), Int(blob.length) + SealedBlob.tagSize)
            try consume(try blob.open(sealed, index: 0))
            plain += blob.length
            position += Int64(SealedBlob.headerSize + SealedBlob.tagSize) + blob.length
        }
    }

    /// The sealing for an upload's file: none without a key, nor for bytes begun in the clear before the key was set
    /// (they finish as they began).
    package static func of(_ fd: Int32, received: Int64, _ sealing: StagedSealing?) -> StagedSealing? {
        guard let sealing, received > 0 else { return sealing }
        return (try? SealedBlob.read(fd, at: 0, SealedBlob.magic.count)) == SealedBlob.magic ? sealing : nil
    }

    private static func key(_ uploadID: String, _ offset: Int64) -> String { "resumable/\(uploadID)@\(offset)" }
}
