import DisposableCore
import Foundation

/// Where an S3-compatible bucket is and how to reach it (`--storage-url s3://BUCKET[/PREFIX]` and the
/// `--s3-…` settings; credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`).
public struct S3Settings: Sendable, Equatable {
    public var bucket: String
    /// Put before every key: "" or a folder ending in "/".
    public var prefix: String
    /// The API's address as this instance reaches it, e.g. `https://s3.eu-west-3.amazonaws.com` or
    /// `http://minio:9000`.
    public var endpoint: String
    /// Where phones reach the bucket, when they should fetch thumbnails and previews from it directly
    /// (presigned links); nil: through the instance.
    public var publicEndpoint: String?
    public var region: String
    /// `endpoint/bucket/key` rather than `bucket.endpoint/key` (MinIO, moto and most self-hosted stores).
    public var pathStyle: Bool
    public var accessKey: String
    public var secretKey: String
    /// Files above this size go up in parts of `partSize` (S3 wants parts of at least 5 MiB but the last).
    public var multipartThreshold: Int64
    public var partSize: Int64

    public init(
        bucket: String, prefix: String = "", endpoint: String, publicEndpoint: String? = nil, region: String = "us-east-1",
        pathStyle: Bool = true, accessKey: String,
        secretKey: String, multipartThreshold: Int64 = 16 << 20, partSize: Int64 = 8 << 20
    ) {
        self.bucket = bucket
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.publicEndpoint = publicEndpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.region = region
        self.pathStyle = pathStyle
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.multipartThreshold = multipartThreshold
        self.partSize = max(5 << 20, partSize)
    }

    /// `s3://BUCKET[/PREFIX]` → bucket and prefix; nil for anything else.
    public static func bucketAndPrefix(_ url: String) -> (bucket: String, prefix: String)? {
        guard url.hasPrefix("s3://") else { return nil }
        let rest = url.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        // Bucket names: 3–63 lower-case letters, digits, dots and hyphens.
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "." || $0 == "-" }),
            !prefix.contains("..")
        else { return nil }
        return (bucket, prefix)
    }
}
