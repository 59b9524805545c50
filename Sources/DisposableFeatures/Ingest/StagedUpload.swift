import Crypto
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

/// An upload body written to a staging file while its SHA-256 is computed and its JPEG structure walked — never
/// held whole in memory, never read back for either.
package struct StagedUpload {
    package let file: URL
    package let sha256: String
    package let byteSize: Int64
    /// The first bytes, to recognise the format.
    package let head: [UInt8]
    /// Whether the bytes are a JPEG whose every segment is in place up to its end-of-image marker (`JPEGStructure`).
    package let isWholeJPEG: Bool

    /// Streams `body` to a new file in `directory`; 413 past `maxBytes`. The file is fsynced when `sync` (a store
    /// that renames it into place, which is also written past the page cache: `StagingWriter`); a store that copies
    /// it makes the copy durable instead, so one sync is paid, not two. On any failure (a dropped connection, a full
    /// disk) the partial file is removed.
    package static func receive(
        _ body: some AsyncSequence<ByteBuffer, any Error>, into directory: URL, maxBytes: Int64, sync: Bool
    ) async throws -> StagedUpload {
        let file = directory.appendingPathComponent(UUID().uuidString)
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DurableFiles.error("open staging file") }
        defer { close(fd) }
        do {
            var hasher = SHA256()
            var structure = JPEGStructure()
            var size: Int64 = 0
            var head: [UInt8] = []
            // Copied into the writer's batch: holding the chunks instead would keep the socket's buffers from being
            // used again, and fresh ones cost more in page faults than this copy.
            let writer = StagingWriter(fd: fd, direct: sync)
            for try await chunk in body {
                size += Int64(chunk.readableBytes)
                guard size <= maxBytes else { throw Problem.photoTooLarge(maxBytes) }
                chunk.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    structure.feed(bytes)
                }
                if head.count < ImageFormat.sniffLength {
                    head += chunk.getBytes(at: chunk.readerIndex, length: min(chunk.readableBytes, ImageFormat.sniffLength - head.count)) ?? []
                }
                try await writer.append(chunk)
            }
            try await writer.finish(sync: sync)
            let digest = hasher.finalize().hex
            return StagedUpload(file: file, sha256: digest, byteSize: size, head: head, isWholeJPEG: structure.verdict == true)
        } catch {
            unlink(file.path)
            throw error
        }
    }

    package func discard() {
        unlink(file.path)
    }
}

extension Problem {
    package static let emptyFile = Problem(.unprocessableContent, "empty-file", title: "Empty file", detail: "The file is empty.")

    package static func photoTooLarge(_ maxBytes: Int64) -> Problem {
        Problem(
            .contentTooLarge, "photo-too-large", title: "Photo too large",
            detail: "This photo is too large: the limit is \(maxBytes / 1_048_576) MB.")
    }
}
