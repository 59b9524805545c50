import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The whole-JPEG check reads uploads a chunk at a time: any split must give the same verdict.
@Suite("JPEG structure check (MED-3)")
struct JPEGStructureTests {
    @Test("A whole JPEG passes however it is split; a cut one, or one with junk after its header, does not")
    func verdicts() async throws {
        let jpeg = [UInt8](try await TestImages.jpeg(width: 120, height: 90, exif: ["-Artist=Ana"]))
        func verdict(_ bytes: [UInt8], chunk: Int) -> Bool {
            var structure = JPEGStructure()
            var start = 0
            while start < bytes.count, structure.verdict == nil {
                let end = min(start + chunk, bytes.count)
                bytes[start..<end].withUnsafeBytes { structure.feed($0) }
                start = end
            }
            return structure.verdict ?? false
        }
        for chunk in [1, 2, 3, 7, 64, 1000, jpeg.count] {
            #expect(verdict(jpeg, chunk: chunk), "chunks of \(chunk)")
            #expect(verdict(jpeg + Array("PK\u{3}\u{4} trailing zip".utf8), chunk: chunk), "bytes after the EOI are ignored")
        }
        for cut in stride(from: 0, to: jpeg.count - 1, by: max(1, jpeg.count / 200)) {
            #expect(!verdict(Array(jpeg.prefix(cut)), chunk: 97), "cut at \(cut) of \(jpeg.count)")
        }
        #expect(!verdict(Array(jpeg.prefix(600)) + [UInt8](repeating: 0x5A, count: 20_000), chunk: 4096))
    }
}
