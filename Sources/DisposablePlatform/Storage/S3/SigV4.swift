import Crypto
import DisposableCore
import Foundation

/// AWS Signature Version 4, as S3 and the stores that copy its API check it: the `Authorization` header
/// form and the query (presigned URL) form. Written here because no listed package signs (Soto is not
/// available); `SigV4Tests` holds it to AWS's published examples.
package struct SigV4Signer: Sendable {
    package let accessKey: String
    package let secretKey: String
    package let region: String
    package var service = "s3"

    /// What is signed of a request. `path` is the raw, unencoded path (`/bucket/events/…`): each segment is
    /// percent-encoded here, once. `headers` are the ones to sign besides `host` and `x-amz-date`.
    package struct Request {
        package var method: String
        package var host: String
        package var path: String
        package var query: [(String, String)] = []
        package var headers: [(String, String)] = []

        package init(method: String, host: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = []) {
            self.method = method
            self.host = host
            self.path = path
            self.query = query
            self.headers = headers
        }
    }

    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to send: the request's own, `x-amz-date`, and `Authorization`. `payloadHash` is the hex
    /// SHA-256 of the body (S3 also wants it sent as `x-amz-content-sha256`; add it to `headers` for that).
    package func sign(_ request: Request, payloadHash: String, at date: Date) -> [(String, String)] {
        let (stamp, day) = Self.timestamps(date)
        var headers = request.headers + [("x-amz-date", stamp)]
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(headers + [("host", request.host)])
        let canonical = [
            request.method, Self.canonicalPath(request.path), Self.canonicalQuery(request.query), canonicalHeaders, signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let signature = self.signature(canonical, stamp: stamp, day: day, scope: scope)
        headers.append(
            ("Authorization", "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"))
        return headers
    }

    /// The query of a presigned URL for `request` (its own query parameters first), valid `expires` seconds.
    package func presignedQuery(_ request: Request, expires: Int, at date: Date) -> String {
        let (stamp, day) = Self.timestamps(date)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(request.headers + [("host", request.host)])
        let query =
            request.query + [
                ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(accessKey)/\(scope)"), ("X-Amz-Date", stamp),
                ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", signedHeaders),
            ]
        let canonical = [
            request.method, Self.canonicalPath(request.path), Self.canonicalQuery(query), canonicalHeaders, signedHeaders, "UNSIGNED-PAYLOAD",
        ].joined(separator: "\n")
        let signature = self.signature(canonical, stamp: stamp, day: day, scope: scope)
        return Self.canonicalQuery(query) + "&X-Amz-Signature=" + signature
    }

    private func signature(_ canonicalRequest: String, stamp: String, day: String, scope: String) -> String {
        let toSign = ["AWS4-HMAC-SHA256", stamp, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key))
    }

    /// Lower-case names, sorted; values trimmed with inner runs of spaces made one; repeated names joined by commas.
    private static func canonicalHeaders(_ headers: [(String, String)]) -> (String, String) {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[name.lowercased(), default: []].append(trimmed)
        }
        let names = values.keys.sorted()
        let lines = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (lines, names.joined(separator: ";"))
    }

    package static func canonicalPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    package static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (encode($0.0), encode($0.1)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// RFC 3986: unreserved characters as they are, every other byte as %XX (upper case).
    package static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// `20130524T000000Z` and `20130524`, in UTC.
    package static func timestamps(_ date: Date) -> (String, String) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let day = String(format: "%04d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday)
        return (day + String(format: "T%02d%02d%02dZ", parts.tm_hour, parts.tm_min, parts.tm_sec), day)
    }

    package static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
