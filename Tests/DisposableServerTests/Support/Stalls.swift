import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// What the suite is waiting for, so that a hang names it. Each test app's phases (start-up, test body,
/// shutdown), its services and every request are recorded while they last. A phase or request still running
/// after `stallAfter` is printed once with its test, and with what else of its app is still running (which
/// service holds a shutdown): the watchdog alone only knows which test hung.
enum InFlight {
    private struct Entry {
        let app: Int?
        let what: String
        let since: ContinuousClock.Instant
        /// Services run for the app's whole life: only reported beside a stalled phase of their app.
        let isService: Bool
        var reported = false
    }

    private static let entries = NIOLockedValueBox<(next: Int, running: [Int: Entry])>((0, [:]))
    /// A loaded full run keeps some tests' apps up for three minutes; a hang is much longer.
    static let stallAfter = Duration.seconds(300)

    static func begin(_ what: String, app: Int? = nil, isService: Bool = false) -> Int {
        _ = watcher
        let label = "\(Test.current?.name ?? "?"): \(what)"
        return entries.withLockedValue { state in
            defer { state.next += 1 }
            state.running[state.next] = Entry(app: app, what: label, since: .now, isService: isService)
            return state.next
        }
    }

    static func end(_ id: Int) { _ = entries.withLockedValue { $0.running.removeValue(forKey: id) } }

    /// Runs `body`, recorded as `what` while it runs.
    static func track<T>(_ what: String, app: Int? = nil, isService: Bool = false, _ body: () async throws -> T) async rethrows -> T {
        let id = begin(what, app: app, isService: isService)
        defer { end(id) }
        return try await body()
    }

    /// What of app `app` is still running (its services, a phase), for a line saying why it was abandoned.
    static func stillRunning(app: Int) -> [String] {
        entries.withLockedValue { state in state.running.values.filter { $0.app == app }.map(\.what).sorted() }
    }

    /// A number for a new test app, naming its phases and services.
    static func newApp() -> Int {
        entries.withLockedValue {
            $0.next += 1; return $0.next
        }
    }

    /// Looks every ten seconds, on a task of its own (a hang leaves the threads idle, so it still runs).
    private static let watcher: Task<Void, Never> = Task.detached {
        while true {
            try? await Task.sleep(for: .seconds(10))
            let now = ContinuousClock.now
            let report = entries.withLockedValue { state -> [String] in
                var lines: [String] = []
                // A test body may be long under load (the matrix: 5 minutes): it is reported later than the rest.
                for (id, entry) in state.running
                where !entry.isService && !entry.reported && now - entry.since > (entry.what.contains("test body") ? stallAfter * 2 : stallAfter) {
                    state.running[id]?.reported = true
                    lines.append("⚠︎ STALLED: \(entry.what) — running for \(now - entry.since)")
                    guard let app = entry.app else { continue }
                    for other in state.running.values where other.app == app && other.what != entry.what {
                        lines.append("    still running in that app: \(other.what) (for \(now - other.since))")
                    }
                }
                return lines
            }
            if !report.isEmpty { FileHandle.standardError.write(Data((report.joined(separator: "\n") + "\n").utf8)) }
        }
    }
}

/// The application as `buildApplication` made it, with its services and start-up steps recorded in `InFlight`.
struct TracedApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    let base: Base
    let app: Int

    var responder: Base.Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }
    func onServerRunning(_ channel: any Channel) async { await base.onServerRunning(channel) }

    var services: [any Service] { base.services.map { TracedService(base: $0, app: app) } }

    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] {
        base.processesRunBeforeServerStart.enumerated().map { index, process in
            { [app] in try await InFlight.track("start-up step \(index + 1)", app: app) { try await process() } }
        }
    }
}

private struct TracedService: Service {
    let base: any Service
    let app: Int

    func run() async throws {
        try await InFlight.track("service \(type(of: base))", app: app, isService: true) { try await base.run() }
    }
}
