import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// OPS-1: every setting also from a file; a flag beats the environment, which beats the file, which beats
/// the default; an unknown key is refused by name.
@Suite("Configuration file (OPS-1)", .serialized)
struct ConfigFileTests {
    @Test("The file's settings apply, the environment and flags win over it, unknown keys are refused")
    func precedence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (filePort, environmentPort, flagPort) = (try freePort(), try freePort(), try freePort())
        let file = directory.appendingPathComponent("disposable.yaml")
        try """
        # Settings for the test instance
        data-dir: \(directory.appendingPathComponent("data").path)
        port: \(filePort)
        registration: false
        public-url: https://photos.example.org
        trusted-proxies: [127.0.0.1, 10.0.0.0/8]
        """.write(to: file, atomically: true, encoding: .utf8)
        let binary = try disposableBinary()
        // The process's own environment may set DISPOSABLE_… for other tests: start from none of them.
        let clean = ["DISPOSABLE_PORT": "", "DISPOSABLE_DATA_DIR": "", "DISPOSABLE_REGISTRATION": "", "DISPOSABLE_LOG_LEVEL": "error"]

        // From the file alone.
        let fromFile = try ChildProcess(
            binary, ["serve", "--config", file.path], environment: clean, log: directory.appendingPathComponent("file.log").path)
        defer { fromFile.signal(SIGKILL) }
        _ = try await waitForHTTP("http://127.0.0.1:\(filePort)/healthz", server: fromFile)
        let status = try await get("http://127.0.0.1:\(filePort)/status", token: nil)
        #expect(status.json["registrationEnabled"] as? Bool == false)
        fromFile.signal(SIGTERM)
        await fromFile.exited()

        // The environment over the file, a flag over both.
        let fromEnvironment = try ChildProcess(
            binary, ["serve", "--config", file.path], environment: clean.merging(["DISPOSABLE_PORT": String(environmentPort)]) { $1 },
            log: directory.appendingPathComponent("environment.log").path)
        defer { fromEnvironment.signal(SIGKILL) }
        #expect(try await waitForHTTP("http://127.0.0.1:\(environmentPort)/healthz", server: fromEnvironment) == 200)
        fromEnvironment.signal(SIGTERM)
        await fromEnvironment.exited()
        let fromFlag = try ChildProcess(
            binary, ["serve", "--config=\(file.path)", "--port", String(flagPort)],
            environment: clean.merging(["DISPOSABLE_PORT": String(environmentPort)]) { $1 }, log: directory.appendingPathComponent("flag.log").path)
        defer { fromFlag.signal(SIGKILL) }
        #expect(try await waitForHTTP("http://127.0.0.1:\(flagPort)/healthz", server: fromFlag) == 200)
        fromFlag.signal(SIGTERM)
        await fromFlag.exited()

        // Unknown keys and odd values stop the start, saying which.
        for (text, expected) in [
            ("prot: 8080\n", "unknown setting “prot”"), ("port: [1, 2]\n", "“port” must be a single value"), ("- port\n", "key: value"),
        ] {
            try text.write(to: file, atomically: true, encoding: .utf8)
            let refused = try await runTool("/bin/sh", ["-c", "exec \"$0\" serve --config \"$1\" 2>&1", binary, file.path], environment: clean)
            #expect(refused.status != 0)
            #expect(refused.output.contains(expected), "\(refused.output)")
        }
        let missing = try await runTool("/bin/sh", ["-c", "exec \"$0\" serve --config /nowhere.yaml 2>&1", binary], environment: clean)
        #expect(missing.status != 0 && missing.output.contains("cannot be read"))
    }
}
