import AsyncHTTPClient
import Crypto
import DisposableCore
import Foundation
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// The few S3 calls a blob store needs, over AsyncHTTPClient, every request signed with SigV4 (bodies too:
/// `x-amz-content-sha256` is their real SHA-256, so nothing unsigned crosses even plain HTTP). Answers the
/// store may recover from (500, 502, 503 `SlowDown`, 504) are tried again with backoff; when they persist, or
/// the bucket cannot be reached, the call throws `StorageUnavailable`.
package struct S3Client: Sendable {
    package let settings: S3Settings
    private let signer: SigV4Signer
    private let scheme: String
    /// `host[:port]` as sent in `Host` and signed.
    private let endpointHost: String

    /// One client for the process (it lives as long as the process does, so it is never shut down): connects
    /// fail fast, so that an unreachable bucket turns into a 503 in seconds rather than minutes.
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(2), read: .seconds(60)),
            connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 32))
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
    package static let attempts = 3

    package struct Failure: Error, CustomStringConvertible {
        package let status: Int
        package let code: String
        package let message: String

        package init(status: Int, code: String, message: String) {
            self.status = status
            self.code = code
            self.message = message
        }
        package var description: String { "S3 answered \(status) \(code): \(message)" }
    }

    package init(settings: S3Settings) throws {
        guard let url = URL(string: settings.endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme), let host = url.host else {
            throw ConfigurationError("The S3 endpoint \(settings.endpoint) is not an http:// or https:// address.")
        }
        self.settings = settings
        self.scheme = scheme
        let hostAndPort = url.port.map { "\(host):\($0)" } ?? host
        endpointHost = settings.pathStyle ? hostAndPort : "\(settings.bucket).\(hostAndPort)"
        signer = SigV4Signer(accessKey: settings.accessKey, secretKey: settings.secretKey, region: settings.region)
    }

    /// The raw path of an object (or of the bucket when `key` is nil), before encoding.
    private func path(_ key: String?) -> String {
        let object = key.map { "/" + settings.prefix + $0 } ?? "/"
        return settings.pathStyle ? "/\(settings.bucket)\(object == "/" ? "" : object)" : object
    }

    // MARK: Objects

    /// PUT of a finished local file, streamed; in parts above `multipartThreshold`.
    package func put(file: URL, key: String, sha256: String, size: Int64) async throws {
        if size > settings.multipartThreshold {
            try await putInParts(file: file, key: key, size: size)
            return
        }
        _ = try await send("PUT", key: key, body: .file(file, offset: 0, length: size), payloadHash: sha256, expecting: [200])
    }

    package func put(data: Data, key: String) async throws {
        let body = ByteBuffer(data: data)
        _ = try await send("PUT", key: key, body: .bytes(body), payloadHash: Self.hash(body), expecting: [200])
    }

    /// The object's bytes (or a range of them) as they arrive; nil when there is no such object.
    package func get(key: String, range: ClosedRange<Int64>?) async throws -> HTTPClientResponse.Body? {
        let headers = range.map { [("Range", "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? []
        let response = try await send("GET", key: key, headers: headers, expecting: [200, 206, 404], keepBody: true)
        guard response.status != .notFound else {
            _ = try? await response.body.collect(upTo: 1 << 20)  // read, so that the connection is reused
            return nil
        }
        return response.body
    }

    package func delete(key: String) async throws {
        _ = try await send("DELETE", key: key, expecting: [200, 204, 404])
    }

    /// Up to 1,000 keys in one request (S3's DeleteObjects); keys that do not exist are no error.
    package func delete(keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        let objects = keys.map { "<Object><Key>\((settings.prefix + $0).xmlEscaped)</Key></Object>" }.joined()
        let body = ByteBuffer(string: "<Delete><Quiet>true</Quiet>\(objects)</Delete>")
        // S3 insists on a checksum of this body; MD5 is the one every compatible store knows.
        let md5 = Data(Insecure.MD5.hash(data: Data(buffer: body))).base64EncodedString()
        let response = try await send(
            "POST", key: nil, query: [("delete", "")], headers: [("Content-MD5", md5), ("Content-Type", "application/xml")],
            body: .bytes(body), payloadHash: Self.hash(body), expecting: [200], keepBody: true)
        let answer = XMLValues(Data(buffer: try await response.body.collect(upTo: 1 << 20)))
        if let code = answer.first("Code") {
            throw Failure(status: 200, code: code, message: answer.first("Message") ?? "Some objects were not deleted.")
        }
    }

    /// One page of keys under `prefix` (our keys, without the store's prefix), after `after`.
    package func list(prefix: String, after: String?, limit: Int) async throws -> (keys: [String], more: Bool) {
        var query = [("list-type", "2"), ("prefix", settings.prefix + prefix), ("max-keys", String(min(limit, 1000)))]
        if let after { query.append(("start-after", settings.prefix + after)) }
        let response = try await send("GET", key: nil, query: query, expecting: [200], keepBody: true)
        let answer = XMLValues(Data(buffer: try await response.body.collect(upTo: 16 << 20)))
        let keys = answer.all("Key").map { String($0.dropFirst(settings.prefix.count)) }
        return (keys, answer.first("IsTruncated") == "true")
    }

    /// Makes the bucket (tests, and first runs against a fresh store); one that exists already is fine.
    package func createBucket() async throws {
        let region = settings.region == "us-east-1" || settings.region == "auto" ? "" : settings.region
        let body = ByteBuffer(
            string: region.isEmpty
                ? "" : "<CreateBucketConfiguration><LocationConstraint>\(region)</LocationConstraint></CreateBucketConfiguration>")
        _ = try await send(
            "PUT", key: nil, body: body.readableBytes == 0 ? .empty : .bytes(body), payloadHash: Self.hash(body), expecting: [200, 409])
    }

    /// Whether the bucket answers (for `/healthz`).
    package func checkBucket() async throws {
        _ = try await send("HEAD", key: nil, expecting: [200])
    }

    // MARK: Multipart

    /// Parts of `partSize` read one at a time (each hashed, then sent: bodies stay fully signed, and at most one
    /// part is in memory); aborted on any failure so that no orphan parts are billed.
    private func putInParts(file: URL, key: String, size: Int64) async throws {
        let started = try await send("POST", key: key, query: [("uploads", "")], expecting: [200], keepBody: true)
        guard let uploadID = XMLValues(Data(buffer: try await started.body.collect(upTo: 1 << 20))).first("UploadId") else {
            throw Failure(status: 200, code: "NoUploadId", message: "The store did not start a multipart upload.")
        }
        do {
            var etags: [String] = []
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(file.path)) { handle in
                var offset: Int64 = 0
                while offset < size {
                    let length = min(settings.partSize, size - offset)
                    var part = ByteBuffer()
                    while part.readableBytes < length {
                        var chunk = try await handle.readChunk(
                            fromAbsoluteOffset: offset + Int64(part.readableBytes), length: .bytes(length - Int64(part.readableBytes)))
                        guard chunk.readableBytes > 0 else { throw Failure(status: 0, code: "ShortFile", message: "\(file.path) ended early.") }
                        part.writeBuffer(&chunk)
                    }
                    let response = try await send(
                        "PUT", key: key, query: [("partNumber", String(etags.count + 1)), ("uploadId", uploadID)], body: .bytes(part),
                        payloadHash: Self.hash(part), expecting: [200])
                    guard let etag = response.headers.first(name: "ETag") else {
                        throw Failure(status: 200, code: "NoETag", message: "A part was stored without an ETag.")
                    }
                    etags.append(etag)
                    offset += length
                }
            }
            let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\($0.element.xmlEscaped)</ETag></Part>" }
            let body = ByteBuffer(string: "<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>")
            let completed = try await send(
                "POST", key: key, query: [("uploadId", uploadID)], headers: [("Content-Type", "application/xml")], body: .bytes(body),
                payloadHash: Self.hash(body), expecting: [200], keepBody: true)
            // Completing can fail after the 200 has started: the error is then in the body.
            let answer = XMLValues(Data(buffer: try await completed.body.collect(upTo: 1 << 20)))
            if let code = answer.first("Code") { throw Failure(status: 200, code: code, message: answer.first("Message") ?? "") }
        } catch {
            _ = try? await send("DELETE", key: key, query: [("uploadId", uploadID)], expecting: [200, 204, 404])
            throw error
        }
    }

    // MARK: Requests

    package enum Body: Sendable {
        case empty
        case bytes(ByteBuffer)
        case file(URL, offset: Int64, length: Int64)
    }

    /// Sends a signed request, again after 500/502/503/504 (with backoff), and checks
    /// the status. The answer's body is drained unless `keepBody`.
    private func send(
        _ method: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [], body: Body = .empty,
        payloadHash: String = SigV4Signer.emptyPayloadHash, expecting: Set<UInt>, keepBody: Bool = false
    ) async throws -> HTTPClientResponse {
        let rawPath = path(key)
        let queryText = SigV4Signer.canonicalQuery(query)
        let url = "\(scheme)://\(endpointHost)\(SigV4Signer.canonicalPath(rawPath))\(queryText.isEmpty ? "" : "?" + queryText)"
        var lastError: any Error = StorageUnavailable(reason: "no attempt made")
        for attempt in 0..<Self.attempts {
            if attempt > 0 {
                // 200 ms, 400 ms, … with jitter, so that instances retrying together do not stay in step.
                try await Task.sleep(for: .milliseconds(Int(200 * pow(2, Double(attempt - 1)) * Double.random(in: 0.75...1.25))))
            }
            var request = HTTPClientRequest(url: url)
            request.method = .init(rawValue: method)
            let signed = signer.sign(
                .init(method: method, host: endpointHost, path: rawPath, query: query, headers: headers + [("x-amz-content-sha256", payloadHash)]),
                payloadHash: payloadHash, at: Date())
            for (name, value) in signed { request.headers.add(name: name, value: value) }
            do {
                let response = try await execute(request, body: body)
                if expecting.contains(response.status.code) {
                    if !keepBody { _ = try? await response.body.collect(upTo: 1 << 20) }
                    return response
                }
                let answer = XMLValues(Data(buffer: (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer()))
                let failure = Failure(
                    status: Int(response.status.code), code: answer.first("Code") ?? "HTTP\(response.status.code)",
                    message: answer.first("Message") ?? response.status.reasonPhrase)
                guard [500, 502, 503, 504].contains(response.status.code) else { throw failure }
                lastError = failure
            } catch let failure as Failure {
                throw failure
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // The connection pool already kept trying to connect for its whole timeout: the store is out of
                // reach (or the connection broke mid-request), and the caller answers 503 at once.
                throw StorageUnavailable(reason: "\(error)")
            }
        }
        throw StorageUnavailable(reason: "\(lastError)")
    }

    private func execute(_ request: HTTPClientRequest, body: Body) async throws -> HTTPClientResponse {
        var request = request
        switch body {
        case .empty:
            return try await Self.http.execute(request, timeout: .seconds(120))
        case .bytes(let bytes):
            request.body = .bytes(bytes)
            return try await Self.http.execute(request, timeout: .seconds(300))
        case .file(let file, let offset, let length):
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(file.path)) { handle in
                request.body = .stream(handle.readChunks(in: offset..<(offset + length), chunkLength: .kibibytes(256)), length: .known(length))
                return try await Self.http.execute(request, timeout: .seconds(600))
            }
        }
    }

    package static func hash(_ bytes: ByteBuffer) -> String {
        bytes.withUnsafeReadableBytes { SigV4Signer.hex(SHA256.hash(data: $0)) }
    }
}

/// The storage cannot be reached (a bucket out of reach, a store answering 503 again and again): uploads
/// answer 503 and keep nothing; reads fail until it is back.
public struct StorageUnavailable: Error, CustomStringConvertible {
    package let reason: String

    package init(reason: String) {
        self.reason = reason
    }
    public var description: String { "The photo storage cannot be reached: \(reason)" }
}
