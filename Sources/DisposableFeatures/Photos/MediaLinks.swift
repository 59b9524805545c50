import Crypto
import DisposableCore
import DisposablePlatform
import Foundation
import NIOConcurrencyHelpers

/// Signed, expiring addresses for a photo's thumbnail and preview (PERF-3).
///
/// Whoever was allowed to list a photo gets an address that carries the grant itself: serving it needs
/// neither a session nor a database lookup, so a gallery's thumbnails load at file-serving speed. The grant
/// ends when the address expires (12–24 h after it was made), or at once when the photo or its event is
/// deleted (the files are gone). Originals keep the per-request check: what they show depends on who asks.
package final class MediaSigner: Sendable {
    /// With a public bucket endpoint, thumbnails and previews link to the bucket instead (`BucketLinks`).
    package let bucket: BucketLinks?

    package init(bucket: BucketLinks? = nil) {
        self.bucket = bucket
    }

    /// Addresses stay the same for a whole window, so browsers keep serving them from their cache.
    package static let window: Int64 = 12 * 3600
    /// An HMAC already keyed: copying it skips the key set-up, a third of a signature's cost.
    private let keyed = NIOLockedValueBox<HMAC<SHA256>?>(nil)
    /// Signatures found genuine lately, and what they signed: a gallery asks for the same thumbnails again
    /// and again, and the HMAC was a tenth of answering one from memory. A presented link is taken from here
    /// only if it names exactly what was signed; anything else is checked in full.
    private let genuine = NIOLockedValueBox<[String: SignedFields]>([:])
    private static let genuineLimit = 20_000

    /// Links made lately: a gallery lists the same photos to hundreds of phones within one expiry window, and
    /// making a pair (HMAC, hex, two strings) was a twentieth of the server's CPU on event night.
    package let issued = IssuedLinks()

    fileprivate struct SignedFields: Hashable {
        let eventID: String
        let photoID: String
        let until: Int64
    }

    /// Reads the instance's key, making it on first start; shared through the database by every instance.
    func load(from settings: InstanceSettingsRepository) async throws {
        let stored = try await settings.mediaSigningKey(candidate: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0).hex })
        guard let bytes = Array(hex: stored), bytes.count == 32 else { throw MediaKeyDamaged() }
        keyed.withLockedValue { $0 = HMAC<SHA256>(key: SymmetricKey(data: bytes)) }
    }

    /// Links valid from `now` on; nil until the key is loaded (callers then give the session-checked addresses).
    package func links(now: Date) -> MediaLinks? {
        guard let keyed = keyed.withLockedValue({ $0 }) else { return nil }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        return MediaLinks(keyed: keyed, until: (seconds / Self.window + 2) * Self.window, bucket: bucket, issued: issued)
    }

    /// Whether a presented address is genuine and still valid.
    package func check(eventID: String, photoID: String, until: Int64, signature: String, now: Date) -> MediaLinkCheck {
        let fields = SignedFields(eventID: eventID, photoID: photoID, until: until)
        if genuine.withLockedValue({ $0[signature] }) != fields {
            guard let keyed = keyed.withLockedValue({ $0 }), let presented = Array(hex: signature) else { return .forged }
            let expected = MediaLinks(keyed: keyed, until: until, bucket: nil).signature(eventID: eventID, photoID: photoID)
            // Constant time: the comparison must not tell how many leading bytes were right.
            guard presented.count == expected.count, zip(presented, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { return .forged }
            genuine.withLockedValue { genuine in
                if genuine.count >= Self.genuineLimit { genuine.removeAll(keepingCapacity: true) }
                genuine[signature] = fields
            }
        }
        return Double(until) > now.timeIntervalSince1970 ? .valid : .expired
    }
}

package enum MediaLinkCheck { case valid, expired, forged }

/// The session-free links made lately, by what they sign (bounded: emptied when full, like `genuine`).
package final class IssuedLinks: Sendable {
    private let links = NIOLockedValueBox<[MediaSigner.SignedFields: (thumbnail: String, preview: String)]>([:])
    private static let limit = 20_000

    fileprivate func links(for fields: MediaSigner.SignedFields) -> (thumbnail: String, preview: String)? {
        links.withLockedValue { $0[fields] }
    }

    fileprivate func keep(_ pair: (thumbnail: String, preview: String), for fields: MediaSigner.SignedFields) {
        links.withLockedValue { links in
            if links.count >= Self.limit { links.removeAll(keepingCapacity: true) }
            links[fields] = pair
        }
    }
}

/// The stored key is not 64 hexadecimal digits: someone edited `instance_settings` by hand.
package struct MediaKeyDamaged: Error { package init() {} }

/// The signing key and expiry of one response's links.
package struct MediaLinks: Sendable {
    package enum File: String, Sendable { case thumbnail = "thumbnail.jpg", preview = "preview.jpg", firstLook = "first-look.jpg" }

    package let keyed: HMAC<SHA256>
    /// Seconds since 1970 after which the links stop working.
    package let until: Int64
    package var bucket: BucketLinks? = nil
    package var issued: IssuedLinks? = nil

    package init(keyed: HMAC<SHA256>, until: Int64, bucket: BucketLinks? = nil, issued: IssuedLinks? = nil) {
        self.keyed = keyed
        self.until = until
        self.bucket = bucket
        self.issued = issued
    }

    /// A photo still shown by its first look (`FirstLook`): that picture's link, for its thumbnail and preview alike.
    package func firstLookPath(eventID: String, photoID: String) -> String {
        if let bucket { return bucket.url(key: BlobKey.firstLook(eventID, photoID), until: until, window: MediaSigner.window) }
        let query = "?until=\(until)&sig=\(signature(eventID: eventID, photoID: photoID).hex)"
        return "/api/v1/media/\(eventID)/\(photoID)/\(File.firstLook.rawValue)" + query
    }

    /// Both links of a photo (one signature serves both), or the bucket's presigned ones.
    package func paths(eventID: String, photoID: String) -> (thumbnail: String, preview: String) {
        if let bucket {
            return (
                bucket.url(key: BlobKey.thumbnail(eventID, photoID), until: until, window: MediaSigner.window),
                bucket.url(key: BlobKey.preview(eventID, photoID), until: until, window: MediaSigner.window)
            )
        }
        let fields = MediaSigner.SignedFields(eventID: eventID, photoID: photoID, until: until)
        if let known = issued?.links(for: fields) { return known }
        let base = "/api/v1/media/\(eventID)/\(photoID)/"
        let query = "?until=\(until)&sig=\(signature(eventID: eventID, photoID: photoID).hex)"
        let links = (base + File.thumbnail.rawValue + query, base + File.preview.rawValue + query)
        issued?.keep(links, for: fields)
        return links
    }

    /// 128 bits of HMAC-SHA256 over the photo and the expiry.
    package func signature(eventID: String, photoID: String) -> [UInt8] {
        var hmac = keyed
        var message = "\(eventID)/\(photoID)/\(until)"
        // One contiguous buffer: an Array or Data here goes through slower generic paths.
        message.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        return Array(hmac.finalize().prefix(16))
    }
}

extension BlobKey {
    /// The file a signed media link names.
    package static func media(_ file: MediaLinks.File, _ eventID: String, _ photoID: String) -> String {
        switch file {
        case .thumbnail: thumbnail(eventID, photoID)
        case .preview: preview(eventID, photoID)
        case .firstLook: firstLook(eventID, photoID)
        }
    }
}
