import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation

/// `/api/v1/media/<event>/<photo>/<file>?until=<seconds>&sig=<hex>`, exactly as `MediaLinks` writes it
/// (any other spelling is left to the router). Read byte by byte: splitting the `String` by characters was a
/// sixth of the shortcut's time.
package struct SignedMediaRequest {
    package let eventID: String
    package let photoID: String
    package let file: MediaLinks.File
    package let until: Int64
    package let signature: String

    package init?(target: String) {
        var target = target
        guard let parsed = target.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(eventID: String, photoID: String, file: MediaLinks.File, until: Int64, signature: String) {
        self.eventID = eventID
        self.photoID = photoID
        self.file = file
        self.until = until
        self.signature = signature
    }

    private static let prefix = Array("/api/v1/media/".utf8)
    /// What separates the five parts after the prefix: event / photo / file ? until= & sig=
    private static let separators = Array("//?&".utf8)

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SignedMediaRequest? {
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        var parts: [Range<Int>] = []
        parts.reserveCapacity(5)
        var start = prefix.count
        for index in start..<bytes.count
        where bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "&") {
            guard parts.count < separators.count, bytes[index] == separators[parts.count] else { return nil }
            parts.append(start..<index)
            start = index + 1
        }
        parts.append(start..<bytes.count)
        guard parts.count == 5 else { return nil }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        let untilField = bytes[parts[3]], sigField = bytes[parts[4]]
        guard let file = MediaLinks.File(rawValue: text(parts[2])),
            untilField.starts(with: "until=".utf8), sigField.starts(with: "sig=".utf8),
            let until = untilField.dropFirst("until=".utf8.count).asciiDecimal
        else { return nil }
        return SignedMediaRequest(
            eventID: text(parts[0]), photoID: text(parts[1]), file: file, until: until,
            signature: text(parts[4].dropFirst("sig=".utf8.count)))
    }
}
