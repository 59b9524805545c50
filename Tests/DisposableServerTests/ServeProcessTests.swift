import AsyncHTTPClient
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The real binary, as an operator runs it (issue: "Run"; ADM-2's `admin create`).
@Suite("The disposable binary", .serialized)
struct ServeProcessTests {
    @Test("A binary without libDisposableVips.so beside it refuses to start and says what is missing")
    func missingImageLibrary() async throws {
        // A hard link in a folder of its own, beside the build folder: a copy would be open for writing while
        // parallel tests spawn processes, and a child inheriting that descriptor makes exec fail (ETXTBSY).
        let binary = try disposableBinary()
        let directory = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("alone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let alone = directory.appendingPathComponent("disposable").path
        try FileManager.default.linkItem(atPath: binary, toPath: alone)
        let (environment, _) = try await serverEnvironment(.sqlite, directory: directory.appendingPathComponent("data"))
        // The message goes to standard error.
        let result = try await runTool("/bin/sh", ["-c", "exec \"$0\" serve 2>&1", alone], environment: environment)
        #expect(result.status != 0)
        #expect(result.output.contains("libDisposableVips.so"), "\(result.output)")
    }

    @Test("serve starts on a data folder, answers /healthz, and exits cleanly on SIGTERM", arguments: TestEngine.allCases)
    func serveAndStop(engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (environment, port) = try await serverEnvironment(engine, directory: directory)
        // admin create migrates a fresh database by itself
        let admin = try await runTool(
            try disposableBinary(), ["admin", "create", "--email", "root@example.com", "--password", "password"],
            environment: environment)
        #expect(admin.status == 0)
        #expect(admin.output.contains("created"))

        let process = try startServer(environment)
        defer { if process.isRunning { process.signal(SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"

        let health = try await waitForHTTP(base + "/healthz", server: process)
        #expect(health == 200)
        let status = try await get(base + "/status", token: nil)
        #expect(status.json["registrationEnabled"] as? Bool == true)
        // An open live stream must not hold the shutdown up.
        let token = try #require(
            try await post(base + "/api/v1/sessions", json: ["email": "root@example.com", "password": "password"]).json["token"] as? String)
        let event = try #require(try await post(base + "/api/v1/events", json: ["name": "Stream"], token: token).json["id"] as? String)
        let stream = try await SSEClient.connect("\(base)/api/v1/events/\(event)/changes", token: token)
        #expect(stream.status == 200)
        if engine == .sqlite {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("disposable.sqlite").path))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("media").path))
        }

        process.signal(SIGTERM)
        let deadline = Date() + 10
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning, "still running 10 s after SIGTERM")
        #expect(await process.exited() == .exit(0))
    }

    @Test("JSON log lines are objects with a time, a level and a message; a request's lines carry its id")
    func jsonLogs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-logs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var (environment, port) = try await serverEnvironment(.sqlite, directory: directory)
        environment["DISPOSABLE_LOG_FORMAT"] = "json"
        let process = try startServer(environment)
        defer { if process.isRunning { process.signal(SIGKILL) } }
        _ = try await waitForHTTP("http://127.0.0.1:\(port)/healthz", server: process)
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/status")
        request.method = .GET
        #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(30)).status == .ok)
        process.signal(SIGTERM)
        await process.exited()
        let log = String(decoding: FileManager.default.contents(atPath: try #require(process.logPath)) ?? Data(), as: UTF8.self)
        let lines = log.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(!lines.isEmpty && lines.allSatisfy { $0["time"] != nil && $0["level"] != nil && $0["message"] != nil })
        let answered = lines.first { ($0["message"] as? String)?.contains("GET /status 200") == true }
        #expect((answered?["hb.request.id"] as? String)?.isEmpty == false, "\(String(describing: answered))")
        #expect(try await runTool(try disposableBinary(), ["migrate", "--log-format", "xml"], environment: environment).status != 0)
    }
}
