import Crypto
import DisposableAPI
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The hand-written formats of the hot paths must say exactly what Foundation's formatters say.
@Suite("Hand-written formats (times, hex, gallery JSON)")
struct TextFormatsTests {
    /// Millisecond times from 1970 to 2100, with leap days and year ends.
    static let milliseconds: [Int64] = {
        var generator = SystemRandomNumberGenerator()
        let fixed: [Int64] = [0, 951_782_400_000, 951_868_799_999, 1_709_164_800_000, 4_107_542_400_000, 1_781_980_200_123, 1_767_225_599_999]
        return fixed + (0..<2000).map { _ in Int64.random(in: 0..<4_102_444_800_000, using: &generator) }
    }()
    static let times = milliseconds.map(Date.init(millisecondsSince1970:))

    @Test("rfc3339 matches Foundation's ISO 8601 style to the millisecond; stored milliseconds survive a Date")
    func rfc3339() throws {
        let style = Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        for milliseconds in Self.milliseconds {
            let time = Date(millisecondsSince1970: milliseconds)
            #expect(time.millisecondsSince1970 == milliseconds)
            // Foundation truncates the binary fraction (…0.123 can print as .122): nudge it past the millisecond.
            #expect(time.rfc3339 == (time + 0.0001).formatted(style), "\(milliseconds)")
            #expect(try style.parse(time.rfc3339).millisecondsSince1970 == milliseconds)
        }
        #expect(Date(millisecondsSince1970: 1_781_980_200_123).rfc3339 == "2026-06-20T18:30:00.123Z")
    }

    @Test("httpDate matches a POSIX DateFormatter")
    func httpDate() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for time in Self.times {
            let second = Date(millisecondsSince1970: time.millisecondsSince1970 / 1000 * 1000)
            #expect(time.httpDate == formatter.string(from: second), "\(time.millisecondsSince1970)")
        }
    }

    @Test("hex matches String(format: \"%02x\")")
    func hex() {
        let bytes = (0...255).map(UInt8.init) + [0, 15, 16, 255]
        #expect(bytes.hex == bytes.map { String(format: "%02x", $0) }.joined())
    }

    @Test("A gallery page written by hand is byte for byte what JSONEncoder.sorted writes")
    func galleryJSON() throws {
        let names = [
            "Maggie", "Ana \"the best\" O'Neil", "back\\slash / slash", "line\nbreak\ttab\r\u{8}\u{C}", "ctl\u{1}\u{1F}\u{7F}",
            "Zoë 😀 \u{2028}", "<script>alert(1)</script>", "",
        ]
        let photos = names.enumerated().map { index, name in
            Photo(
                id: "p\(index)", eventID: "e1", uploaderID: index % 2 == 0 ? "me" : "u\(index)", shooterName: name,
                shooterNumber: index + 1, sha256: String(repeating: "ab", count: 32),
                format: index == 7 ? .video(.webm) : .image(ImageFormat.allCases[index % 6]),
                source: index % 3 == 0 ? .library : .camera, byteSize: Int64(index) * 1_000_003,
                width: index % 4 == 0 ? nil : 4032, height: index % 4 == 0 ? nil : 3024,
                takenAt: Self.times[index], uploadedAt: Self.times[index + 10], status: index % 5 == 0 ? .processing : .ready,
                approved: index % 2 == 0, failure: nil, kind: index == 7 ? .video : .photo, duration: index == 7 ? 12.4 : nil)
        }
        // Signed links ("?", "&" in the text) on half of them, the session-checked addresses on the rest.
        let links = MediaLinks(keyed: HMAC<SHA256>(key: SymmetricKey(size: .bits256)), until: 1_900_000_000)
        // Some shooters with an account picture (SOC-5).
        let pictures = ["u1": "/api/v1/users/a1/avatar.jpg?v=3", "me": "/api/v1/users/a2/avatar.jpg?v=1"]
        let items = photos.enumerated().map { index, photo in
            PhotoJSON(photo, viewerID: "me", links: index % 2 == 0 ? links : nil, pictures: index % 3 == 0 ? pictures : [:])
        }
        let pages = [
            GalleryPage(items: items, nextCursor: "c1", revealed: true, revealAt: nil, developingCount: nil, changeSeq: 42),
            GalleryPage(items: [], nextCursor: nil, revealed: false, revealAt: Self.times[3], developingCount: 7, changeSeq: 0),
        ]
        for page in pages {
            let expected = String(decoding: try JSONEncoder.sorted.encode(page), as: UTF8.self)
            #expect(String(decoding: page.json.bytes, as: UTF8.self) == expected)
        }
    }
}
