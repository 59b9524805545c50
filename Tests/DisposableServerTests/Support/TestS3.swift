import Foundation

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The private S3 endpoint `scripts/test` starts (moto): a fresh bucket per test.
enum TestS3 {
    static var endpoint: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["DISPOSABLE_TEST_S3_ENDPOINT"] else {
                throw TestSetupError("DISPOSABLE_TEST_S3_ENDPOINT is not set: run the suite with scripts/test, which starts an S3 endpoint.")
            }
            return url
        }
    }

    /// The variables that point `disposable serve` at this bucket.
    static func environment(_ settings: S3Settings) -> [String: String] {
        [
            "DISPOSABLE_STORAGE_URL": "s3://\(settings.bucket)", "DISPOSABLE_S3_ENDPOINT": settings.endpoint, "DISPOSABLE_S3_PATH_STYLE": "true",
            "AWS_ACCESS_KEY_ID": settings.accessKey, "AWS_SECRET_ACCESS_KEY": settings.secretKey,
        ]
    }

    /// Settings for a new, empty bucket (moto takes any credentials).
    static func freshBucket(prefix: String = "", multipartThreshold: Int64 = 16 << 20) async throws -> S3Settings {
        let settings = S3Settings(
            bucket: "test-\(UUID().uuidString.lowercased().prefix(18))", prefix: prefix, endpoint: try endpoint, accessKey: "test",
            secretKey: "test", multipartThreshold: multipartThreshold, partSize: 5 << 20)
        try await S3Client(settings: settings).createBucket()
        return settings
    }
}
