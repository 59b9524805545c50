import AsyncHTTPClient
import DisposableAPI
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

/// A decoded response: status, headers and the body as JSON (when it is JSON).
struct APIResponse {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:] }
    var text: String { String(buffer: body) }
    subscript(key: String) -> Any? { json[key] }
    func string(_ key: String) -> String? { json[key] as? String }

    /// The body as the API's own model (`DisposableAPI`), read as the SDK and the web pages read it.
    func decode<T: Decodable>(_ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        try JSONDecoder.api.decode(type, from: Data(buffer: body))
    }

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

    /// One API call whose body is one of the API's own models (`DisposableAPI`), encoded as the server encodes it:
    /// tests build requests from the same types as the server and the SDK's contract, not from dictionaries.
    func call(
        _ method: HTTPRequest.Method, _ path: String, body: some Encodable & Sendable, token: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> APIResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers[.contentType] = "application/json"
        return try await send(path, method: method, headers: headers, body: ByteBuffer(data: try JSONEncoder.sorted.encode(body)))
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
            let registered = try await call(.post, "/api/v1/users", body: RegisterRequest(email: email, password: password, name: "Olivia"))
            #expect(registered.status == .created, "\(registered.text)")
        }
        let session = try await call(.post, "/api/v1/sessions", body: LoginRequest(email: email, password: password))
        return try session.decode(Session.self).token
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
        let response = try await call(.post, "/api/v1/join", body: JoinRequest(code: code, name: name, password: password))
        #expect(response.status == .created, "\(response.text)")
        return try response.decode(JoinResult.self).token
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

    /// Uploads a photo as a form, with the phone's first look of it when there is one.
    func uploadForm(_ photo: Data, firstLook: Data?, event: String, token: String?, key: String? = nil) async throws -> APIResponse {
        let form = photoForm(photo, firstLook: firstLook)
        var headers: HTTPFields = [.contentType: form.contentType, .init("X-Photo-Source")!: "camera"]
        if let key { headers[.init("Idempotency-Key")!] = key }
        return try await call(.post, "/api/v1/events/\(event)/photos", token: token, headers: headers, body: form.body)
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

    /// Waits until the media workers have processed a library asset; returns its final JSON. The bound catches a render
    /// that never ends, not a slow one: under the full parallel run on two cores, a render waits behind hundreds.
    func waitUntilAssetProcessed(_ assetID: String, token: String, timeout: Duration = .seconds(120)) async throws -> APIResponse {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let asset = try await call(.get, "/api/v1/library/assets/\(assetID)", token: token)
            if asset.string("status") != "processing" { return asset }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupError("asset \(assetID) still processing after \(timeout)")
    }

    /// Waits until the media workers have processed a photo, its preview included (a photo shown by its first look
    /// is ready before); returns its final JSON.
    func waitUntilProcessed(_ photoID: String, token: String, timeout: Duration = .seconds(120)) async throws -> APIResponse {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let photo = try await call(.get, "/api/v1/photos/\(photoID)", token: token)
            if photo.string("status") != "processing" && photo.json["previewPending"] == nil { return photo }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupError("photo \(photoID) still processing after \(timeout)")
    }

    /// The files still stored once the renders under way are done: a render whose photo is deleted meanwhile writes
    /// its files, then finds the photo gone and removes them. Empty as soon as nothing is left; what remains after
    /// `timeout` otherwise.
    func storedFilesAfterRenders(timeout: Duration = .seconds(120)) async throws -> Set<String> {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !storedFiles().isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        return storedFiles()
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
    /// A new account made a co-organizer of `eventID` by its owner's invitation: its token and user id.
    func coOrganizer(of eventID: String, owner: String) async throws -> (token: String, id: String) {
        let invitation = try await call(.post, "/api/v1/events/\(eventID)/co-organizers/invitations", token: owner)
        let token = try await userToken()
        let accepted = try await call(.post, "/api/v1/co-organizer-invitations/\(try #require(invitation.string("token")))", token: token)
        #expect(accepted.status == .ok, "\(accepted.text)")
        let me = try await call(.get, "/api/v1/me", token: token)
        return (token, try #require((me["user"] as? [String: Any])?["id"] as? String))
    }

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
