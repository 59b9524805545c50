import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The environment for a `disposable serve` process on a fresh database and data folder, and its port.
func serverEnvironment(_ engine: TestEngine, directory: URL) async throws -> ([String: String], Int) {
    let port = try freePort()
    var environment = ["DISPOSABLE_DATA_DIR": directory.path, "DISPOSABLE_PORT": String(port), "DISPOSABLE_LOG_LEVEL": "error"]
    if engine == .postgres, case .postgres(let url) = try await engine.freshDatabase(in: directory) {
        environment["DISPOSABLE_DATABASE_URL"] = url
    }
    return (environment, port)
}

func startServer(_ environment: [String: String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try disposableBinary())
    process.arguments = ["serve"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

struct HTTPResult: @unchecked Sendable {
    let status: Int
    let body: Data
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
}

private func send(_ request: URLRequest) async throws -> HTTPResult {
    let (data, response) = try await URLSession.shared.data(for: request)
    return HTTPResult(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
}

func post(_ url: String, json: [String: Any], token: String? = nil) async throws -> HTTPResult {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    request.httpBody = try JSONSerialization.data(withJSONObject: json)
    return try await send(request)
}

func upload(_ data: Data, to url: String, token: String) async throws -> HTTPResult {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.setValue("image/jpeg", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    request.httpBody = data
    return try await send(request)
}

func get(_ url: String, token: String?) async throws -> HTTPResult {
    var request = URLRequest(url: URL(string: url)!)
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    return try await send(request)
}

/// Polls `url` until it answers (the server is starting), returning the status code.
func waitForHTTP(_ url: String, timeout: TimeInterval = 20) async throws -> Int {
    let deadline = Date() + timeout
    while Date() < deadline {
        if let (_, response) = try? await URLSession.shared.data(from: URL(string: url)!), let http = response as? HTTPURLResponse {
            return http.statusCode
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw TestSetupError("\(url) did not answer within \(timeout) s")
}

/// A TCP port nobody listens on right now.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}
