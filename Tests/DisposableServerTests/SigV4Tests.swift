import Crypto
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// The S3 client's signer against AWS's published SigV4 examples, at their fixed times. moto does
/// not check signatures strictly, so these are what keeps the signer honest.
@Suite("SigV4 signing")
struct SigV4Tests {
    /// The generic test suite's credentials, region and service (`aws-sig-v4-test-suite`, 20150830T123600Z).
    static let suite = SigV4Signer(
        accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "service")
    static let suiteTime = Date(timeIntervalSince1970: 1_440_938_160)
    /// S3's documentation examples (examplebucket, 20130524T000000Z).
    static let s3 = SigV4Signer(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    static let s3Time = Date(timeIntervalSince1970: 1_369_353_600)

    static func signature(_ headers: [(String, String)]) -> String? {
        headers.first { $0.0 == "Authorization" }?.1.components(separatedBy: "Signature=").last
    }

    @Test(
        "The generic suite: get-vanilla, a query, a UTF-8 path, post-vanilla",
        arguments: [
            ("GET", "/", [(String, String)](), "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
            ("GET", "/", [("Param1", "value1")], "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
            ("GET", "/ሴ", [], "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
            ("POST", "/", [], "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        ])
    func genericSuite(method: String, path: String, query: [(String, String)], expected: String) {
        let headers = Self.suite.sign(
            .init(method: method, host: "example.amazonaws.com", path: path, query: query), payloadHash: SigV4Signer.emptyPayloadHash,
            at: Self.suiteTime)
        #expect(Self.signature(headers) == expected)
        #expect(headers.contains { $0 == ("x-amz-date", "20150830T123600Z") })
    }

    @Test("S3: GET an object's first ten bytes (header form)")
    func s3Get() {
        let headers = Self.s3.sign(
            .init(
                method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
                headers: [("Range", "bytes=0-9"), ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)]),
            payloadHash: SigV4Signer.emptyPayloadHash, at: Self.s3Time)
        let authorization = headers.first { $0.0 == "Authorization" }?.1
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("S3: PUT an object with a body, a storage class and a Date (header form)")
    func s3Put() {
        let body = Data("Welcome to Amazon S3.".utf8)
        let hash = SigV4Signer.hex(SHA256Digest.of(body))
        let headers = Self.s3.sign(
            .init(
                method: "PUT", host: "examplebucket.s3.amazonaws.com", path: "/test$file.text",
                headers: [
                    ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", hash),
                ]),
            payloadHash: hash, at: Self.s3Time)
        #expect(Self.signature(headers) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test("S3: a presigned GET valid for a day (query form)")
    func s3Presigned() {
        let query = Self.s3.presignedQuery(
            .init(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt"), expires: 86400, at: Self.s3Time)
        #expect(
            query
                == "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test("Paths and queries are encoded as RFC 3986 says, once")
    func encoding() {
        #expect(SigV4Signer.canonicalPath("/bucket/events/a b/ü+x") == "/bucket/events/a%20b/%C3%BC%2Bx")
        #expect(SigV4Signer.canonicalQuery([("prefix", "events/"), ("list-type", "2"), ("a", "~_-.")]) == "a=~_-.&list-type=2&prefix=events%2F")
    }
}

enum SHA256Digest {
    static func of(_ data: Data) -> SHA256.Digest { SHA256.hash(data: data) }
}
