import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import DisposableServer

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
                recentReads: RecentReads(lifetime: .minutes(10)))
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

/// A decoded response: status, headers and the body as JSON (when it is JSON).
struct APIResponse {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:] }
    var text: String { String(buffer: body) }
    subscript(key: String) -> Any? { json[key] }
    func string(_ key: String) -> String? { json[key] as? String }

    /// Checks the response is a problem+json with this status, and returns its detail.
    @discardableResult
    func expectProblem(_ expected: HTTPResponse.Status, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        #expect(status == expected, "\(text)", sourceLocation: sourceLocation)
        #expect(headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let detail = string("detail") ?? ""
        #expect(!detail.isEmpty, "a problem needs a human sentence", sourceLocation: sourceLocation)
        #expect((json["status"] as? Int) == Int(expected.code), sourceLocation: sourceLocation)
        return detail
    }
}

extension TestApp {
    /// Opens an event's live stream over a real connection (only in `live` mode).
    func subscribe(event: String, token: String, lastEventID: Int64? = nil) async throws -> SSEClient {
        let port = try #require(client.port, "run the app with live: true")
        return try await SSEClient.connect("http://127.0.0.1:\(port)/api/v1/events/\(event)/changes", token: token, lastEventID: lastEventID)
    }

    /// One API call. `json` is encoded as the body; `raw` is sent as it is.
    func call(
        _ method: HTTPRequest.Method, _ path: String, json: Any? = nil, raw: String? = nil, token: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> APIResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer? = nil
        if let json {
            body = ByteBuffer(data: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        } else if let raw {
            body = ByteBuffer(string: raw)
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        return try await send(path, method: method, headers: headers, body: body)
    }

    /// In `live` mode requests go over AsyncHTTPClient connections of their own: HummingbirdTesting's live
    /// client pipelines every request on one connection with a fixed 20 s read timeout, too short when the
    /// whole suite shares two cores.
    func send(_ path: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> APIResponse {
        guard let port = client.port else {
            return try await InFlight.track("\(method) \(path)") {
                try await client.execute(uri: path, method: method, headers: headers, body: body) {
                    APIResponse(status: $0.status, headers: $0.headers, body: $0.body)
                }
            }
        }
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .init(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let exchange = request
        return try await InFlight.track("\(method) \(path) (live)") {
            try await withTimeLimit(.seconds(120), "\(method) \(path)") {
                let response = try await HTTPClient.shared.execute(exchange, timeout: .seconds(120))
                var fields = HTTPFields()
                for (name, value) in response.headers { if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) } }
                let bytes = try await response.body.collect(upTo: 512 << 20)
                return APIResponse(status: .init(code: Int(response.status.code)), headers: fields, body: bytes)
            }
        }
    }

    /// Registers an account and logs in; returns the bearer token.
    func userToken(email: String = "organizer\(UUID().uuidString.prefix(6))@example.com", password: String = "correct horse") async throws -> String {
        if services.configuration.smtpURL != nil {
            // With a mail server an account waits for its mailed link (SignUpByMailTests follows one); the tests
            // that only need an account get it without a mail in their inbox.
            _ = try await services.accounts.addAccount(email: email, password: password, name: "Olivia", isAdmin: false)
        } else {
            let registered = try await call(.post, "/api/v1/users", json: ["email": email, "password": password, "name": "Olivia"])
            #expect(registered.status == .created, "\(registered.text)")
        }
        let session = try await call(.post, "/api/v1/sessions", json: ["email": email, "password": password])
        return try #require(session.string("token"))
    }

    /// Creates an event (defaults unless overridden) and returns its JSON.
    func createEvent(token: String, _ settings: [String: Any] = [:]) async throws -> [String: Any] {
        var body: [String: Any] = ["name": "Ana & Ben's wedding"]
        body.merge(settings) { $1 }
        let response = try await call(.post, "/api/v1/events", json: body, token: token)
        #expect(response.status == .created, "\(response.text)")
        return response.json
    }

    /// Joins an event as a guest; returns the guest token.
    func guestToken(code: String, name: String = "Maggie", password: String? = nil) async throws -> String {
        var body = ["code": code, "name": name]
        body["password"] = password
        let response = try await call(.post, "/api/v1/join", json: body)
        #expect(response.status == .created, "\(response.text)")
        return try #require(response.string("token"))
    }
}

extension TestApp {
    /// Uploads image bytes to an event.
    func upload(_ data: Data, event: String, token: String?, key: String? = nil, source: String? = nil) async throws -> APIResponse {
        var headers: HTTPFields = [.contentType: "image/jpeg"]
        if let key { headers[.init("Idempotency-Key")!] = key }
        if let source { headers[.init("X-Photo-Source")!] = source }
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await send("/api/v1/events/\(event)/photos", method: .post, headers: headers, body: ByteBuffer(data: data))
    }

    /// One call with raw bytes as its body.
    func call(_ method: HTTPRequest.Method, _ path: String, token: String?, headers extra: HTTPFields = [:], body: Data) async throws -> APIResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await send(path, method: method, headers: headers, body: ByteBuffer(data: body))
    }

    /// Uploads a photo's or a video's bytes to the caller's own library (LIB-1).
    func uploadToLibrary(
        _ data: Data, token: String?, key: String? = nil, takenAt: String? = nil, fileName: String? = nil, contentType: String = "image/jpeg"
    ) async throws -> APIResponse {
        var headers: HTTPFields = [.contentType: contentType]
        if let key { headers[.init("Idempotency-Key")!] = key }
        if let takenAt { headers[.init("X-Taken-At")!] = takenAt }
        if let fileName { headers[.init("X-File-Name")!] = fileName }
        return try await call(.post, "/api/v1/library/assets", token: token, headers: headers, body: data)
    }

    /// Waits until the media workers have processed a library asset; returns its final JSON.
    func waitUntilAssetProcessed(_ assetID: String, token: String, timeout: Duration = .seconds(30)) async throws -> APIResponse {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let asset = try await call(.get, "/api/v1/library/assets/\(assetID)", token: token)
            if asset.string("status") != "processing" { return asset }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("asset \(assetID) still processing after \(timeout)")
    }

    /// Waits until the media workers have processed a photo; returns its final JSON.
    func waitUntilProcessed(_ photoID: String, token: String, timeout: Duration = .seconds(30)) async throws -> APIResponse {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let photo = try await call(.get, "/api/v1/photos/\(photoID)", token: token)
            if photo.string("status") != "processing" { return photo }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("photo \(photoID) still processing after \(timeout)")
    }

    /// Every file under the media folder (staging included), relative to it.
    func storedFiles() -> Set<String> {
        let root = services.configuration.mediaDirectory
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return Set(
            files.filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
            })
    }
}

extension TestApp {
    /// A matrix row's `{guest}` (a guest of `event` other than the caller) and `{key}` (its wall link's key).
    func fillGuestAndWall(_ path: String, event: [String: Any], organizer: String) async throws -> String {
        var path = path
        if path.contains("{guest}") {
            let victim = try await guestToken(code: event["code"] as! String, name: "Victim")
            let me = try await call(.get, "/api/v1/me", token: victim)
            path = path.replacingOccurrences(of: "{guest}", with: try #require((me["guest"] as? [String: Any])?["id"] as? String))
        }
        if path.contains("{key}") {
            let wall = try await call(.post, "/api/v1/events/\(event["id"] as! String)/wall", token: organizer)
            path = path.replacingOccurrences(of: "{key}", with: try #require(wall.string("url")?.components(separatedBy: "/w/").last))
        }
        return path
    }

    /// Files in upload staging: none once every upload has ended, stored or refused.
    func stagedFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: services.configuration.stagingDirectory.path)) ?? []
    }
}

extension RateLimit {
    static let generous = RateLimit(burst: 1000, refillEvery: .seconds(1))
}

/// Waits up to 30 s for `condition` (files removed after the answer, a bucket listing catching up).
func expectEventually(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while try await !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
    #expect(try await condition(), sourceLocation: sourceLocation)
}

/// How many test apps may run on the shared PostgreSQL at once; the others wait their turn.
actor PostgresAppSlots {
    static let shared = PostgresAppSlots(count: 40)
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
