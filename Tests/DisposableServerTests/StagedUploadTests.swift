import Crypto
import Foundation
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// An upload's body on its way to the staging file: whatever its length and however the network cut it, the file
/// holds its bytes exactly, written past the page cache for a store that keeps the file and through it otherwise.
@Suite("Staging an upload's body")
struct StagedUploadTests {
    /// Around a page and a batch, and a photo's length.
    static let lengths = [0, 1, 4095, 4096, 4097, StagingWriter.batchSize - 1, StagingWriter.batchSize, StagingWriter.batchSize + 1, 3_000_123]

    static func body(_ bytes: [UInt8], chunk: Int) -> AsyncThrowingStream<ByteBuffer, any Error> {
        AsyncThrowingStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                continuation.yield(ByteBuffer(bytes: bytes[start..<min(start + chunk, bytes.count)]))
            }
            continuation.finish()
        }
    }

    @Test("Every length, cut in chunks of any size, on this disk and in the temporary folder, synced or not")
    func exactBytes() async throws {
        // The package's own folder lies on a disk; the temporary folder may be a tmpfs.
        let disk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/staging-test-\(UUID())")
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("staging-test-\(UUID())")
        defer {
            try? FileManager.default.removeItem(at: disk)
            try? FileManager.default.removeItem(at: temporary)
        }
        var generator = SystemRandomNumberGenerator()
        for directory in [disk, temporary] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for length in Self.lengths {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                for (chunk, sync) in [(1_000, true), (65_536, true), (262_144, false), (4096, true)] where length < 100_000 || chunk >= 4096 {
                    let staged = try await StagedUpload.receive(Self.body(bytes, chunk: chunk), into: directory, maxBytes: 10_000_000, sync: sync)
                    defer { staged.discard() }
                    let context = "\(length) bytes in chunks of \(chunk), sync \(sync), in \(directory.path)"
                    let written = try Data(contentsOf: staged.file)
                    #expect(written.count == length, "\(context)")
                    #expect(written == Data(bytes), "\(context)")
                    #expect(staged.byteSize == Int64(length), "\(context)")
                    #expect(staged.sha256 == SHA256.hash(data: bytes).hex, "\(context)")
                }
            }
        }
    }

    @Test("Past its limit a body is refused and its partial file removed")
    func overLimit() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("staging-test-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = [UInt8](repeating: 7, count: StagingWriter.batchSize * 2 + 10)
        await #expect(throws: Problem.self) {
            _ = try await StagedUpload.receive(Self.body(bytes, chunk: 65_536), into: directory, maxBytes: Int64(bytes.count - 1), sync: true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
