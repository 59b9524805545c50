import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// A real application on a fresh database and a temporary data folder, driven through HTTP.
struct TestApp {
    let client: any TestClientProtocol
    let services: AppServices
    let clock: ManualClock

    /// Builds the app on `engine`, runs `body` against it, and removes everything afterwards.
    /// With `live`, the app listens on a real port (needed to read a live stream as it comes).
    ///
    /// Rarely, under a full parallel run, an app's start-up or shutdown stops progressing with every thread idle
    /// (cause not found yet; see DECISIONS "A test app that does not start or stop"). Such an app is abandoned
    /// with a loud line in the log: a stuck start-up is tried once more on a fresh app, a stuck shutdown after a
    /// finished test keeps that test's result. A test body itself is never cut short.
    static func run(
        _ engine: TestEngine,
        live: Bool = false,
        configure: (inout AppConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TestApp) async throws -> Void
    ) async throws {
        for attempt in 1...2 {
            // At most so many apps on the shared PostgreSQL at once: each holds a few connections, and a full run's
            // hundreds of parallel cases went past the server's 1,000 ("too many clients"), starving the others.
            if engine == .postgres { await PostgresAppSlots.shared.take() }
            defer { if engine == .postgres { Task { await PostgresAppSlots.shared.give() } } }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = AppConfiguration(
                dataDirectory: directory.path,
                database: try await engine.freshDatabase(in: directory),
                databasePoolSize: 4,  // dozens of apps share the test server's connections
                publicBaseURL: "https://disposable.test",
                // Generous limits so that tests of other things never meet them; rate-limit tests set their own.
                limits: RateLimits(
                    login: .generous, loginPerAddress: .generous, loginPerAccount: .generous, join: .generous, joinPerEvent: .generous,
                    registration: .generous, support: .generous),
                passwordHashCost: 4  // the default, 12, is checked by its own test; 4 keeps fixtures fast
            )
            // The tests' push service, scrobbler and provider listen on loopback; the outbound tests turn this off.
            configuration.outboundAllowsLoopback = true
            // Hundreds of apps run at once: each looking at the clock four times a second and at the jobs table once a
            // second with seven workers kept the machine busy with nothing. The waits in the tests allow for more.
            configuration.clockInterval = .seconds(1)
            configuration.workerIdleWait = .seconds(3)
            configuration.mediaWorkers = 3
            configure(&configuration)
            switch try await runOnce(engine, live: live, configuration: configuration, body) {
            case .finished(let result): return try result.get()
            case .startUpStalled where attempt == 1:
                log("⚠︎ ABANDONED: \(Test.current?.name ?? "?") on \(engine): the app did not start within \(startUpLimit); trying a fresh one")
            case .startUpStalled:
                throw TestSetupError("The app did not start within \(startUpLimit), twice.")
            }
        }
    }

    /// Far above a start-up or shutdown under a loaded full run (seconds), far below the watchdog's limit.
    static let startUpLimit = Duration.seconds(240)
    static let shutdownLimit = Duration.seconds(120)

    private enum Outcome {
        case finished(Result<Void, any Error>)
        case startUpStalled
    }

    private enum Phase {
        case startUp, body, shutdown
    }

    private static func runOnce(
        _ engine: TestEngine, live: Bool, configuration: AppConfiguration, _ body: @escaping @Sendable (TestApp) async throws -> Void
    ) async throws -> Outcome {
        let logger = Logger(label: "test")
        let clock = ManualClock()
        let database = try await openDatabase(configuration.database, poolSize: configuration.databasePoolSize, logger: logger)
        // Remembered reads outlive every test here (in service, a second): an answer not forgotten when it
        // should be shows up as a failure, not as a delay.
        let services: AppServices
        do {
            services = try AppServices(
                configuration: configuration, database: database, clock: clock, logger: logger,
                recentReads: RecentReads(lifetime: .minutes(10), identityLifetime: .minutes(10)))
        } catch {
            await database.close()
            throw error
        }
        let number = InFlight.newApp()
        let app = TracedApplication(base: buildApplication(services: services), app: number)
        // Each phase recorded, so that a hang says whether it is the start-up, the test or the shutdown.
        let state = NIOLockedValueBox(
            (
                phase: Phase.startUp, since: ContinuousClock.now, entry: InFlight.begin("start-up on \(engine)", app: number),
                body: Result<Void, any Error>?.none, ended: Result<Void, any Error>?.none, abandoned: false
            ))
        /// Moves to the next phase, unless the app was abandoned in its start-up; says whether it moved.
        @Sendable func enter(_ phase: Phase, _ what: String) -> Bool {
            state.withLockedValue {
                guard !$0.abandoned else { return false }
                InFlight.end($0.entry)
                ($0.phase, $0.since, $0.entry) = (phase, .now, InFlight.begin("\(what) on \(engine)", app: number))
                return true
            }
        }
        Task {
            let ended: Result<Void, any Error>
            do {
                try await app.test(live ? .live : .router) { client in
                    // An app abandoned in its start-up never runs the test: a fresh one does.
                    guard enter(.body, "test body") else { return }
                    let result: Result<Void, any Error>
                    do {
                        result = .success(try await body(TestApp(client: client, services: services, clock: clock)))
                    } catch {
                        result = .failure(error)
                    }
                    state.withLockedValue { $0.body = result }
                    _ = enter(.shutdown, "shutdown")
                    try result.get()
                }
                ended = .success(())
            } catch {
                ended = .failure(error)
            }
            state.withLockedValue {
                InFlight.end($0.entry)
                $0.ended = ended
            }
        }
        // Waits for the app, watching its start-up and shutdown (the body may take as long as it takes).
        while true {
            let (phase, since, body, ended) = state.withLockedValue { ($0.phase, $0.since, $0.body, $0.ended) }
            if let ended {
                if case .failure = body { return .finished(body!) }  // the test's own failure, not what shutdown made of it
                return .finished(ended)
            }
            let waited = ContinuousClock.now - since
            if phase == .startUp && waited > startUpLimit {
                let gaveUp = state.withLockedValue { state in
                    // Under the lock `enter` takes: either the test has started, or it never will on this app.
                    if state.phase == .startUp { state.abandoned = true }
                    return state.abandoned
                }
                if gaveUp {
                    log("⚠︎ still running in the abandoned app: \(InFlight.stillRunning(app: number).joined(separator: ", "))")
                    return .startUpStalled
                }
            }
            if phase == .shutdown && waited > shutdownLimit, let body {
                log(
                    "⚠︎ ABANDONED: \(Test.current?.name ?? "?") on \(engine): the app did not stop within \(shutdownLimit) after its test; "
                        + "still running: \(InFlight.stillRunning(app: number).joined(separator: ", "))")
                return .finished(body)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func log(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
}
