import Foundation
import NIOConcurrencyHelpers

/// A child process whose end is awaited, never blocked on. Foundation's `waitUntilExit()` spins a run loop on
/// the calling thread and, after many launches under load, can park it forever for a process that has already
/// exited; on one of the two cooperative threads that stalls every test in the process. The termination
/// handler is installed before launch, so a process that exits at once is not missed.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let ending = NIOLockedValueBox<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Launches `executable`; standard output goes to `output` (default: nowhere), standard error nowhere.
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, output: FileHandle? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.terminationHandler = { [ending] _ in
            let waiters = ending.withLockedValue { state in
                state.ended = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { !ending.withLockedValue { $0.ended } }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the process to end: how it ended (`.exit` or `.uncaughtSignal`) and its status or signal.
    @discardableResult
    func exited() async -> (reason: Process.TerminationReason, status: Int32) {
        await withCheckedContinuation { continuation in
            let ended = ending.withLockedValue { state in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
        return (process.terminationReason, process.terminationStatus)
    }

    /// SIGTERM, then the end (a server shuts down within seconds).
    func stop() async {
        signal(SIGTERM)
        await exited()
    }
}

/// Runs a command-line tool to its end and returns its exit status and standard output. The output goes
/// through a temporary file, so nothing blocks reading a pipe.
func runTool(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).out")
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw TestSetupError("cannot create \(file.path)") }
    defer { try? FileManager.default.removeItem(at: file) }
    let handle = try FileHandle(forWritingTo: file)
    let child: ChildProcess
    do { child = try ChildProcess(executable, arguments, environment: environment, output: handle) } catch {
        try? handle.close()
        throw error
    }
    try handle.close()  // the child has its own copy
    let status = await child.exited().status
    return (status, String(decoding: try Data(contentsOf: file), as: UTF8.self))
}

/// Runs `body`, then `cleanup` whether `body` threw or not (an awaiting `defer`).
func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async throws -> T {
    do {
        let result = try await body()
        await cleanup()
        return result
    } catch {
        await cleanup()
        throw error
    }
}

/// The `disposable` binary built next to the tests (`swift build` puts it in the same folder).
func disposableBinary() throws -> String {
    let bundle = Bundle.main.bundleURL
    for candidate in [bundle, bundle.deletingLastPathComponent()] {
        let path = candidate.appendingPathComponent("disposable").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    let fallback = FileManager.default.currentDirectoryPath + "/.build/debug/disposable"
    guard FileManager.default.isExecutableFile(atPath: fallback) else {
        throw TestSetupError("The disposable binary is not built: run scripts/test (it runs swift build first).")
    }
    return fallback
}

func writeTemporaryFile(_ data: Data, suffix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-\(UUID().uuidString)\(suffix)")
    try data.write(to: url)
    return url
}
