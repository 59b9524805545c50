import Foundation

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// A real Maloja scrobbler (malojaserver from PyPI, which `scripts/install-deps test` installs), started on a free port
/// with its own data folder and a known API key; stopped by `stop()`.
struct TestMaloja {
    let base: String
    let key: String
    let process: ChildProcess
    let folder: URL

    static func start() async throws -> TestMaloja {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("maloja-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = "test-\(UUID().uuidString)"
        // Maloja reads its keys from this file: the one the tests use, named after them.
        try Data("disposable-tests: \(key)\n".utf8).write(to: folder.appendingPathComponent("apikeys.yml"))
        let port = try freePort()
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", "-m", "maloja", "run"],
            environment: ["MALOJA_SKIP_SETUP": "yes", "MALOJA_DATA_DIRECTORY": folder.path, "MALOJA_PORT": String(port)],
            log: folder.appendingPathComponent("output.log").path)
        let base = "http://127.0.0.1:\(port)"
        guard try await waitForHTTP(base + "/apis/mlj_1/serverinfo", server: process, timeout: 60) == 200 else {
            throw TestSetupError("Maloja did not start: \(process.logTail)")
        }
        return TestMaloja(base: base, key: key, process: process, folder: folder)
    }

    /// Scrobbles `title` by `artists` at `time` (Unix seconds), through Maloja's own API.
    func scrobble(_ title: String, by artists: [String], at time: Int) async throws {
        let answer = try await post(base + "/apis/mlj_1/newscrobble", json: ["key": key, "title": title, "artists": artists, "time": time])
        guard answer.status == 200, answer.json["status"] as? String == "success" else { throw TestSetupError("scrobble: \(answer.text)") }
    }

    func stop() async {
        process.signal(SIGKILL)
        await process.exited()
        try? FileManager.default.removeItem(at: folder)
    }
}
