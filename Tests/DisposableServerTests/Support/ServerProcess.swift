import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The environment for a `disposable serve` process on a fresh database and data folder, and its port.
func serverEnvironment(_ engine: TestEngine, directory: URL) async throws -> ([String: String], Int) {
    let port = try freePort()
    // A small pool: the suite's apps and servers share one PostgreSQL (its connections ran out once).
    var environment = [
        "DISPOSABLE_DATA_DIR": directory.path, "DISPOSABLE_PORT": String(port), "DISPOSABLE_LOG_LEVEL": "debug",
        "DISPOSABLE_DATABASE_POOL_SIZE": "4", "DISPOSABLE_TEST_OUTBOUND_LOOPBACK": "1", "DISPOSABLE_TEST_PASSWORD_HASH_COST": "4",
    ]
    if engine == .postgres, case .postgres(let url) = try await engine.freshDatabase(in: directory) {
        environment["DISPOSABLE_DATABASE_URL"] = url
    }
    return (environment, port)
}

/// Starts `disposable serve`; what it prints is kept for `waitForHTTP`'s failure message.
func startServer(_ environment: [String: String]) throws -> ChildProcess {
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-serve-\(UUID().uuidString).log").path
    return try ChildProcess(try disposableBinary(), ["serve"], environment: environment, log: log)
}

struct HTTPResult: @unchecked Sendable {
    let status: Int
    let body: Data
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The client for servers the tests start (and kill).
private let serverClient: HTTPClient = {
    // Enough connections for every upload of a burst at once (the shared client queues beyond 8 per host).
    var configuration = HTTPClient.Configuration(
        connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64))
    // A killed server is gone on purpose: a request to it must fail at once. Retrying, the pool backs off
    // for up to a minute after a burst of refused connections — and then ignores the restarted server too.
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()

/// Sends one request over AsyncHTTPClient, which fails cleanly when the server dies mid-request
/// (URLSession on Linux could leave such a request hanging forever).
private func fetch(
    _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: Data? = nil,
    timeout: Duration = .seconds(60)
) async throws -> HTTPResult {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
    let exchange = request
    return try await withTimeLimit(timeout, "\(method) \(url)") {
        let response = try await serverClient.execute(exchange, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
        let bytes = try await response.body.collect(upTo: 512 << 20)
        return HTTPResult(status: Int(response.status.code), body: Data(bytes.readableBytesView))
    }
}

private func authorization(_ token: String?) -> [(String, String)] {
    token.map { [("Authorization", "Bearer \($0)")] } ?? []
}

func post(_ url: String, json: [String: Any], token: String? = nil) async throws -> HTTPResult {
    try await fetch(
        url, method: .POST, headers: [("Content-Type", "application/json")] + authorization(token),
        body: try JSONSerialization.data(withJSONObject: json))
}

func upload(
    _ data: Data, to url: String, token: String, contentType: String = "image/jpeg", headers: [(String, String)] = [],
    timeout: Duration = .seconds(60)
) async throws -> HTTPResult {
    try await fetch(url, method: .POST, headers: [("Content-Type", contentType)] + authorization(token) + headers, body: data, timeout: timeout)
}

/// The shutter's form: the photo, after the phone's first look of it when there is one.
func photoForm(_ photo: Data, firstLook: Data?) -> (contentType: String, body: Data) {
    let boundary = "----disposable-\(UUID().uuidString)"
    var body = Data()
    func part(_ name: String, _ bytes: Data) {
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(name)\"\r\n".utf8)
        body += Data("Content-Type: image/jpeg\r\n\r\n".utf8) + bytes + Data("\r\n".utf8)
    }
    if let firstLook { part("firstLook", firstLook) }
    part("photo", photo)
    body += Data("--\(boundary)--\r\n".utf8)
    return ("multipart/form-data; boundary=\(boundary)", body)
}

func get(_ url: String, token: String? = nil, headers: [(String, String)] = []) async throws -> HTTPResult {
    try await fetch(url, headers: authorization(token) + headers)
}

func patch(_ url: String, json: [String: Any], token: String?) async throws -> HTTPResult {
    try await fetch(
        url, method: .PATCH, headers: [("Content-Type", "application/json")] + authorization(token),
        body: try JSONSerialization.data(withJSONObject: json))
}

func delete(_ url: String, token: String?) async throws -> HTTPResult {
    try await fetch(url, method: .DELETE, headers: authorization(token))
}

/// Polls `url` until it answers (`server` is starting), returning the status code. If it never does, the
/// error says whether the server ended and what it printed.
/// The default allows for a loaded run: a server on the shared test PostgreSQL may wait for a connection while hundreds
/// of test apps hold theirs ("too many clients" for a while, seen in a CI run at 20 s).
func waitForHTTP(_ url: String, server: ChildProcess? = nil, timeout: TimeInterval = 90) async throws -> Int {
    let deadline = Date() + timeout
    while Date() < deadline, server?.ended == nil {
        if let result = try? await fetch(url, timeout: .seconds(2)) { return result.status }
        try await Task.sleep(for: .milliseconds(100))
    }
    let state = server.map { $0.ended.map { " (the server ended: \($0))" } ?? " (the server still runs)" } ?? ""
    throw TestSetupError("\(url) did not answer within \(timeout) s\(state)\n\(server?.logTail ?? "")")
}

/// Ports for the servers the tests start, handed out in turn below the kernel's ephemeral range (32768 and up on
/// Linux): the suite's own outgoing connections (to PostgreSQL, S3, its servers) take ephemeral ports, and one of
/// them once took a port handed out here before its server could bind it ("Address already in use").
private let nextPort = Mutex(20_000 + Int.random(in: 0..<4_000))

/// A TCP port nobody listens on right now.
func freePort() throws -> Int {
    for _ in 0..<12_000 {
        let port = nextPort.withLock { next in
            defer { next = next >= 31_999 ? 20_000 : next + 1 }
            return next
        }
        if canBind(port) { return port }
    }
    throw TestSetupError("no free TCP port between 20000 and 32000")
}

private func canBind(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
}
