import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// A connection to one Disposable server, as an account or a guest.
///
/// Every operation of the API is on ``api``, generated from the contract (`openapi.yaml`); the methods of this type
/// cover what generated code makes awkward: uploading a file with progress, the live change feed, paging.
///
/// ```swift
/// let (client, _) = try await DisposableClient.logIn(server: URL(string: "https://photos.example")!,
///                                                     email: "ana@example.com", password: "correct horse")
/// let event = try await client.api.createEvent(body: .json(.init(name: "Ana & Ben"))).created.body.json
/// let photo = try await client.uploadPhoto(URL(filePath: "IMG_0001.JPG"), to: event.id) { sent, total in
///     print("\(sent) of \(total) bytes")
/// }
/// for try await change in client.changes(in: event.id) {
///     print(change.seq, change.kind)
/// }
/// ```
///
/// A refusal by the server is thrown as ``DisposableProblem`` (its `detail` is a sentence for a person), also when
/// calling ``api`` directly, where it arrives inside OpenAPIRuntime's `ClientError` (see ``DisposableProblem/from(_:)``).
public struct DisposableClient: Sendable {
    /// The generated client: one method per operation of the contract.
    public let api: Client
    /// The server's address, e.g. `https://photos.example`.
    public let serverURL: URL
    /// The bearer token this client sends, if any.
    public let token: String?
    /// The same, without a per-request time limit: for the change feed's stream.
    let streaming: Client

    /// A client for `serverURL`, signed in with `token` (from ``logIn(server:email:password:)`` or a guest's join).
    public init(serverURL: URL, token: String? = nil, httpClient: HTTPClient = .shared) {
        self.serverURL = serverURL
        self.token = token
        let middlewares: [any ClientMiddleware] = [BearerToken(token: token), RawHeaders(), ProblemReader()]
        let configuration = Configuration(dateTranscoder: APIDateTranscoder())
        // Uploads and downloads of whole events over a slow link take long: an hour per request.
        api = Client(
            serverURL: serverURL, configuration: configuration,
            transport: AsyncHTTPClientTransport(configuration: .init(client: httpClient, timeout: .hours(1))), middlewares: middlewares)
        streaming = Client(
            serverURL: serverURL, configuration: configuration,
            transport: AsyncHTTPClientTransport(configuration: .init(client: httpClient, timeout: .hours(24 * 365))),
            middlewares: middlewares)
    }

    /// Logs in to an account; the client returned sends its token.
    public static func logIn(
        server: URL, email: String, password: String, httpClient: HTTPClient = .shared
    ) async throws -> (DisposableClient, Components.Schemas.Session) {
        let anonymous = DisposableClient(serverURL: server, httpClient: httpClient)
        let session = try await anonymous.call { try await anonymous.api.logIn(body: .json(.init(email: email, password: password))).ok.body.json }
        return (DisposableClient(serverURL: server, token: session.token, httpClient: httpClient), session)
    }

    /// Joins an event by its code as a guest; the client returned sends the guest's token.
    public static func join(
        server: URL, code: String, name: String, password: String? = nil, httpClient: HTTPClient = .shared
    ) async throws -> (DisposableClient, Components.Schemas.Joined) {
        let anonymous = DisposableClient(serverURL: server, httpClient: httpClient)
        let joined = try await anonymous.call {
            try await anonymous.api.joinEvent(body: .json(.init(code: code, name: name, password: password))).created.body.json
        }
        return (DisposableClient(serverURL: server, token: joined.token, httpClient: httpClient), joined)
    }

    /// Runs `body`, turning a refusal wrapped by the generated client back into the ``DisposableProblem`` it is.
    public func call<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw DisposableProblem.from(error) ?? error
        }
    }
}

/// Sends `Authorization: Bearer …` when there is a token.
struct BearerToken: ClientMiddleware {
    let token: String?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}

/// Header fields a call sets byte for byte (`RawHeaders.$fields.withValue`), past the generated client's encoding.
struct RawHeaders: ClientMiddleware {
    @TaskLocal static var fields: [String: String] = [:]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for (name, value) in Self.fields { if let name = HTTPField.Name(name) { request.headerFields[name] = value } }
        return try await next(request, body, baseURL)
    }
}

/// Times as the API writes them (RFC 3339 with milliseconds), read with or without the fraction.
struct APIDateTranscoder: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    func decode(_ text: String) throws -> Date {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "“\(text)” is not an RFC 3339 time."))
    }
}
