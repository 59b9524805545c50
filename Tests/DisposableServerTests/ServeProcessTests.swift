import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The real binary, as an operator runs it (issue: "Run"; ADM-2's `admin create`).
@Suite("The disposable binary", .serialized)
struct ServeProcessTests {
    @Test("serve starts on a data folder, answers /healthz, and exits cleanly on SIGTERM", arguments: TestEngine.allCases)
    func serveAndStop(engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try freePort()
        var environment = ["DISPOSABLE_DATA_DIR": directory.path, "DISPOSABLE_PORT": String(port)]
        if engine == .postgres {
            guard case .postgres(let url) = try await engine.freshDatabase(in: directory) else { return }
            environment["DISPOSABLE_DATABASE_URL"] = url
        }
        // admin create migrates a fresh database by itself
        let admin = try runTool(try disposableBinary(), ["admin", "create", "--email", "root@example.com", "--password", "password"],
                                environment: environment)
        #expect(admin.status == 0)
        #expect(admin.output.contains("created"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: try disposableBinary())
        process.arguments = ["serve"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let health = try await waitForHTTP("http://127.0.0.1:\(port)/healthz")
        #expect(health == 200)
        let status = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/status")!)
        #expect(String(decoding: status.0, as: UTF8.self).contains("\"registrationEnabled\":true"))
        if engine == .sqlite {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("disposable.sqlite").path))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("media").path))
        }

        kill(process.processIdentifier, SIGTERM)
        let deadline = Date() + 10
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning, "still running 10 s after SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
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
