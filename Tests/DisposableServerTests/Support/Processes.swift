import Foundation
import NIOConcurrencyHelpers

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A child process whose end is awaited, never blocked on.
///
/// Started with `posix_spawn` and reaped by a `waitpid` on a thread of its own, not through Foundation's
/// `Process`: its exit monitoring has lost children here under load (`waitUntilExit()` parked a thread
/// forever for a process already gone, and the whole suite with it).
final class ChildProcess: Sendable {
    enum Ending: Equatable, Sendable {
        case exit(Int32)
        case signal(Int32)
    }

    let pid: pid_t
    private let ending = NIOLockedValueBox<(ending: Ending?, waiters: [CheckedContinuation<Ending, Never>])>((nil, []))

    /// Where standard output and standard error went, when they were kept (`log`); removed with the process.
    let logPath: String?

    /// Launches `executable`; standard output goes to `output` (default: nowhere), standard error nowhere —
    /// or, with `log`, both to that file.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, output: FileHandle? = nil,
        log: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let log {
            posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else if let output {
            posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // Nothing else of the test process: a child that inherited an app's accepted sockets (nginx, living for a
        // whole test) kept connections open that their server had closed.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        logPath = log
        let variables = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }.map { "\($0)=\($1)" }
        var pid: pid_t = 0
        let status = withCStrings([executable] + arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, executable, &actions, nil, argv, envp) }
        }
        guard status == 0 else { throw TestSetupError("cannot start \(executable): \(String(cString: strerror(status)))") }
        self.pid = pid
        let (child, ending) = (pid, ending)
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let end: Ending = status & 0x7F == 0 ? .exit((status >> 8) & 0xFF) : .signal(status & 0x7F)
            let waiters = ending.withLockedValue { state in
                state.ending = end
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: end) }
        }
    }

    deinit {
        if let logPath { unlink(logPath) }
    }

    var isRunning: Bool { ending.withLockedValue { $0.ending == nil } }

    /// How the process ended, if it has.
    var ended: Ending? { ending.withLockedValue { $0.ending } }

    /// The end of what the process printed (with `log`), for a failure message.
    var logTail: String {
        guard let logPath, let data = FileManager.default.contents(atPath: logPath) else { return "" }
        return String(decoding: data.suffix(6000), as: UTF8.self)
    }

    /// Sends `signal` while the process runs (once reaped, its pid may belong to someone else).
    func signal(_ signal: Int32) {
        ending.withLockedValue { if $0.ending == nil { _ = kill(pid, signal) } }
    }

    /// Lets a stopped process run for `milliseconds` and stops it again, timed by a thread of its own: in a loaded
    /// test run the pool's sleep can last long enough for the process to finish what it was meant to be caught doing.
    func run(milliseconds: UInt32) async {
        await withCheckedContinuation { (stopped: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.signal(SIGCONT)
                usleep(milliseconds * 1000)
                self.signal(SIGSTOP)
                stopped.resume()
            }
        }
    }

    /// Waits for the process to end.
    @discardableResult
    func exited() async -> Ending {
        await withCheckedContinuation { continuation in
            let ended = ending.withLockedValue { state in
                if state.ending == nil { state.waiters.append(continuation) }
                return state.ending
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }
}

/// Calls `body` with `strings` as a NULL-terminated C array (argv, envp).
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
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
    guard case .exit(let status) = await child.exited() else { throw TestSetupError("\(executable) was killed") }
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
