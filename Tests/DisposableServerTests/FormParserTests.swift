import Foundation
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The shutter's form as the network cuts it: in two at every byte, and a byte at a time, the parts come out whole,
/// even when a photo holds bytes that begin like the boundary.
@Suite("The shutter's form, read as it streams")
struct FormParserTests {
    static let boundary = "----disposable-b0undary"
    /// A photo's bytes that hold the delimiter's beginnings: a line break, dashes, the boundary but for its last byte.
    static let trickyPhoto = Data("\u{FF}\u{D8}\r\n--\r\n----disposable-b0undar\r\n-x\r".utf8) + Data((0..<300).map { UInt8($0 % 256) })

    static func form(preamble: String = "", padding: String = "") -> [UInt8] {
        var body = Array(preamble.utf8)
        body += Array("--\(boundary)\(padding)\r\nContent-Disposition: form-data; name=\"firstLook\"\r\n\r\n".utf8)
        body += Array("small".utf8) + Array("\r\n--\(boundary)\r\n".utf8)
        body += Array("Content-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += Array(trickyPhoto) + Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n".utf8)
        body += Array("\r\n--\(boundary)--\r\nepilogue".utf8)
        return body
    }

    /// The parts read from `chunks`: name → bytes.
    static func read(_ chunks: [[UInt8]]) throws -> (parts: [(String, Data)], complete: Bool) {
        var parser = FormParser(boundary: boundary)
        var parts: [(String, Data)] = []
        for chunk in chunks {
            try parser.feed(ByteBuffer(bytes: chunk)) { event in
                switch event {
                case .part(let headers):
                    let disposition = headers.first { $0.name.lowercased() == "content-disposition" }?.value ?? ""
                    let name = disposition.components(separatedBy: "name=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
                    parts.append((String(name), Data()))
                case .bytes(let bytes): parts[parts.count - 1].1 += Data(bytes.readableBytesView)
                case .partEnd: break
                }
            }
        }
        return (parts, parser.isComplete)
    }

    static func expectWhole(_ result: (parts: [(String, Data)], complete: Bool), _ comment: Comment) {
        #expect(result.complete, comment)
        #expect(result.parts.map(\.0) == ["firstLook", "photo", "empty"], comment)
        #expect(result.parts.map(\.1) == [Data("small".utf8), trickyPhoto, Data()], comment)
    }

    @Test("Cut in two at every byte, and a byte at a time, with or without a preamble and spaces after the boundary")
    func everyCut() throws {
        for body in [Self.form(), Self.form(preamble: "This is a preamble.\r\n", padding: "  ")] {
            for cut in 0...body.count {
                Self.expectWhole(try Self.read([Array(body[..<cut]), Array(body[cut...])]), "cut at \(cut)")
            }
            Self.expectWhole(try Self.read(body.map { [$0] }), "a byte at a time")
        }
    }

    @Test("Without its closing boundary a form is not complete; broken boundaries and endless headers are refused")
    func broken() throws {
        let body = Self.form()
        let cut = Array(body[..<(body.count - 14)])  // "--\r\nepilogue" and the boundary's last bytes gone
        #expect(try Self.read([cut]).complete == false)
        #expect(throws: FormParser.Malformed.self) {
            try Self.read([Array("--\(Self.boundary)garbage\r\n\r\n".utf8)])
        }
        #expect(throws: FormParser.Malformed.self) {
            try Self.read([Array("--\(Self.boundary)\r\nNo colon here\r\n\r\nx".utf8)])
        }
        #expect(throws: FormParser.Malformed.self) {
            try Self.read([Array("--\(Self.boundary)\r\nX-Long: ".utf8) + [UInt8](repeating: 0x61, count: FormParser.maxHeaderBytes + 1)])
        }
    }

    @Test("A large photo strewn with near misses of the delimiter comes out whole, in chunks of any size")
    func strewnPhoto() throws {
        var generator = SystemRandomNumberGenerator()
        let delimiter = Array("\r\n--\(Self.boundary)".utf8)
        var photo: [UInt8] = []
        while photo.count < 300_000 {
            photo += (0..<Int.random(in: 0...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // A near miss: the delimiter with bytes cut from its start or its end, or one changed; between zero bytes,
            // which the delimiter has none of, so that random bytes beside it cannot make it whole.
            var near = delimiter
            switch Int.random(in: 0...2, using: &generator) {
            case 0: near.removeFirst(Int.random(in: 1..<near.count, using: &generator))
            case 1: near.removeLast(Int.random(in: 1..<near.count, using: &generator))
            default: near[Int.random(in: 0..<near.count, using: &generator)] ^= 0x01
            }
            photo += [0] + near + [0]
        }
        var body = Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\n".utf8)
        body += photo + Array("\r\n--\(Self.boundary)--\r\n".utf8)
        for chunkSize in [5, 24, 25, 26, 4096, 65_536, body.count] {
            let chunks = stride(from: 0, to: body.count, by: chunkSize).map { Array(body[$0..<min($0 + chunkSize, body.count)]) }
            let result = try Self.read(chunks)
            #expect(result.complete, "chunks of \(chunkSize)")
            #expect(result.parts.map(\.0) == ["photo"], "chunks of \(chunkSize)")
            #expect(result.parts.first?.1 == Data(photo), "chunks of \(chunkSize)")
        }
    }
}
