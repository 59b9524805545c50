import ArgumentParser
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableServer
import DisposableWeb
import Foundation

/// Where photos are kept: the data folder by default, or an S3-compatible bucket (OPS-4).
struct StorageOptions: ParsableArguments {
    @Option(
        help: """
            Keep photos in an S3-compatible bucket: s3://BUCKET or s3://BUCKET/PREFIX (env DISPOSABLE_STORAGE_URL). \
            Credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Default: the data folder's media/.
            """)
    var storageURL: String? = env("DISPOSABLE_STORAGE_URL")

    @Option(help: "The S3 API's address, e.g. http://minio:9000 (env DISPOSABLE_S3_ENDPOINT). Default: AWS in --s3-region.")
    var s3Endpoint: String? = env("DISPOSABLE_S3_ENDPOINT")

    @Option(
        help:
            "Where phones reach the bucket, to fetch thumbnails and previews from it by presigned links (env DISPOSABLE_S3_PUBLIC_ENDPOINT). Default: through this server."
    )
    var s3PublicEndpoint: String? = env("DISPOSABLE_S3_PUBLIC_ENDPOINT")

    @Option(help: "The bucket's region: us-east-1, eu-west-3, auto… (env DISPOSABLE_S3_REGION).")
    var s3Region: String = env("DISPOSABLE_S3_REGION") ?? "us-east-1"

    @Option(
        help: """
            Encrypt photos at rest with the 32-byte key in this file: head -c 32 /dev/urandom > storage.key (env \
            DISPOSABLE_STORAGE_KEY_FILE). Keep it, and a copy apart from the photos: without it they cannot be read.
            """)
    var storageKeyFile: String? = env("DISPOSABLE_STORAGE_KEY_FILE")

    @Flag(help: "Address the bucket as ENDPOINT/BUCKET rather than BUCKET.ENDPOINT (MinIO, Garage…; env DISPOSABLE_S3_PATH_STYLE=true).")
    var s3PathStyle = false
    private var pathStyle: Bool { s3PathStyle || ["true", "1"].contains(env("DISPOSABLE_S3_PATH_STYLE") ?? "") }

    /// The key photos are encrypted with, if any; refused beside presigned bucket links, which would hand phones the
    /// encrypted bytes.
    func key() throws -> StorageKey? {
        guard let storageKeyFile, !storageKeyFile.isEmpty else { return nil }
        if s3PublicEndpoint != nil {
            throw ValidationError(
                "--storage-key-file and --s3-public-endpoint cannot go together: the bucket holds the photos encrypted, so phones must get them through this server. Leave out --s3-public-endpoint."
            )
        }
        if let exposure = StorageKey.exposure(of: storageKeyFile) {
            FileHandle.standardError.write(Data("warning: \(exposure)\n".utf8))
        }
        do {
            return try StorageKey(file: storageKeyFile)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The store these options name; nil for the data folder.
    func location() throws -> StorageLocation? {
        guard let storageURL, !storageURL.isEmpty else { return nil }
        guard let (bucket, prefix) = S3Settings.bucketAndPrefix(storageURL) else {
            throw ValidationError(
                "--storage-url must look like s3://BUCKET or s3://BUCKET/PREFIX (a bucket name of 3–63 lower-case letters, digits, dots and hyphens)."
            )
        }
        guard let accessKey = env("AWS_ACCESS_KEY_ID"), let secretKey = env("AWS_SECRET_ACCESS_KEY"), !accessKey.isEmpty, !secretKey.isEmpty else {
            throw ValidationError("An S3 bucket needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment.")
        }
        let endpoint = s3Endpoint ?? "https://s3.\(s3Region).amazonaws.com"
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--s3-endpoint must be an http:// or https:// address, e.g. https://s3.eu-west-3.amazonaws.com.")
        }
        if let s3PublicEndpoint {
            guard let url = URL(string: s3PublicEndpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--s3-public-endpoint must be an http:// or https:// address, e.g. https://media.example.org.")
            }
        }
        return .s3(
            S3Settings(
                bucket: bucket, prefix: prefix, endpoint: endpoint, publicEndpoint: s3PublicEndpoint, region: s3Region, pathStyle: pathStyle,
                accessKey: accessKey,
                secretKey: secretKey))
    }
}
