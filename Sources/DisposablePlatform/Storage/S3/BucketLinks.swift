import DisposableCore
import Foundation

/// Presigned bucket addresses for thumbnails and previews (`--s3-public-endpoint`): phones fetch them straight
/// from the bucket, at the address they can reach, and the instance serves none of those bytes. Signed for
/// the same window as our own links (`MediaSigner`), from its start, so that an address stays the same for the
/// whole window and browsers keep it cached. Originals keep going through the instance: who asks decides
/// whether the location is taken out.
package struct BucketLinks: Sendable {
    package let settings: S3Settings
    /// `https://media.example.org` as phones reach the store.
    package let publicEndpoint: String
    private let signer: SigV4Signer
    private let scheme: String
    private let host: String

    package init?(settings: S3Settings) {
        guard let endpoint = settings.publicEndpoint, let url = URL(string: endpoint), let scheme = url.scheme, let host = url.host else {
            return nil
        }
        self.settings = settings
        publicEndpoint = endpoint
        self.scheme = scheme
        let hostAndPort = url.port.map { "\(host):\($0)" } ?? host
        self.host = settings.pathStyle ? hostAndPort : "\(settings.bucket).\(hostAndPort)"
        signer = SigV4Signer(accessKey: settings.accessKey, secretKey: settings.secretKey, region: settings.region)
    }

    /// The address of `key`, valid until `until` (seconds since 1970), signed at the start of its window.
    package func url(key: String, until: Int64, window: Int64) -> String {
        let signedAt = until - 2 * window
        let path = (settings.pathStyle ? "/\(settings.bucket)/" : "/") + settings.prefix + key
        let query = signer.presignedQuery(
            .init(method: "GET", host: host, path: path), expires: Int(until - signedAt), at: Date(timeIntervalSince1970: TimeInterval(signedAt)))
        return "\(scheme)://\(host)\(SigV4Signer.canonicalPath(path))?\(query)"
    }

    /// The origin to allow in the pages' Content-Security-Policy (`img-src`).
    package var origin: String { "\(scheme)://\(host)" }
}
