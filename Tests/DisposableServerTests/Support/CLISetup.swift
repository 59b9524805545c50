import AsyncHTTPClient
import Foundation
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// The CLI tests' server, configuration folder and runs of the real binary.
extension CLITests {
    struct Run {
        let status: Int32
        let output: String
        let errors: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(output.utf8)) }
    }

    /// A server on a fresh data folder with one account, and a config folder for the CLI's login.
    /// How many of the event's photos are ready (listed, rendered).
    static func readyPhotos(_ setup: Setup, event: String) async throws -> Int {
        let page = try await get("\(setup.base)/api/v1/events/\(event)/photos?limit=100", token: try setup.token)
        return (page.json["items"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "ready" }.count
    }

    struct Setup {
        let base: String
        let config: URL
        let root: URL
        let server: ChildProcess
        /// The server's settings, to start it again on the same port and data.
        let environment: [String: String]

        static func start() async throws -> Setup {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-cli-\(UUID().uuidString)")
            let (environment, port) = try await serverEnvironment(.sqlite, directory: root.appendingPathComponent("data"))
            let settings = environment.merging(["DISPOSABLE_LOG_LEVEL": "error"]) { $1 }
            let server = try startServer(settings)
            let base = "http://127.0.0.1:\(port)"
            _ = try await waitForHTTP(base + "/healthz", server: server)
            _ = try await post(base + "/api/v1/users", json: ["email": "ana@example.com", "password": "correct horse", "name": "Ana"])
            return Setup(base: base, config: root.appendingPathComponent("config"), root: root, server: server, environment: settings)
        }

        /// The server stopped (SIGTERM) and started again on the same port and data.
        func restarted(after away: () async throws -> Void = {}) async throws -> Setup {
            server.signal(SIGTERM)
            await server.exited()
            try await away()
            let again = try startServer(environment)
            _ = try await waitForHTTP(base + "/healthz", server: again)
            return Setup(base: base, config: config, root: root, server: again, environment: environment)
        }

        /// Runs `disposable ARGS…`, with `stdin` piped in when given.
        func cli(_ arguments: [String], stdin: String? = nil) async throws -> Run {
            let errors = root.appendingPathComponent("stderr-\(UUID().uuidString)")
            let script = stdin == nil ? "exec \"$0\" \"$@\" 2>\"$ERRORS\"" : "printf '%s\\n' \"$INPUT\" | \"$0\" \"$@\" 2>\"$ERRORS\""
            let (status, output) = try await runTool(
                "/bin/sh", ["-c", script, try disposableBinary()] + arguments,
                environment: ["XDG_CONFIG_HOME": config.path, "ERRORS": errors.path, "INPUT": stdin ?? ""])
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            return Run(status: status, output: output, errors: text)
        }

        func logIn() async throws {
            let login = try await cli(["login", "--server", base, "--email", "ana@example.com", "--password-stdin"], stdin: "correct horse")
            #expect(login.status == 0, "\(login.errors)")
        }

        /// The account's token, as the CLI saved it.
        var token: String {
            get throws {
                let data = try Data(contentsOf: config.appendingPathComponent("disposable/credentials.json"))
                return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String)
            }
        }

        func stop() async {
            server.signal(SIGTERM)
            await server.exited()
            try? FileManager.default.removeItem(at: root)
        }
    }
}
