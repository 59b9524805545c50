import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A refusal by the server (an RFC 9457 problem): what went wrong in a sentence for a person, and which kind.
public struct DisposableProblem: Error, LocalizedError, Sendable, Equatable {
    /// The HTTP status, e.g. 403.
    public let status: Int
    /// The kind, e.g. `/problems/shot-limit-reached`.
    public let type: String
    public let title: String
    /// A sentence for a person, e.g. “You have taken all your shots.”
    public let detail: String
    /// Members of its own: `field`, `existingId`…
    public let extensions: [String: String]
    /// `Retry-After`, in seconds, for 429 and 503.
    public let retryAfter: Int?

    public var errorDescription: String? { detail }

    public init(status: Int, type: String, title: String, detail: String, extensions: [String: String] = [:], retryAfter: Int? = nil) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.extensions = extensions
        self.retryAfter = retryAfter
    }

    /// The slug of ``type``: `shot-limit-reached`.
    public var slug: String { type.split(separator: "/").last.map(String.init) ?? type }

    /// When an error is the exchange with the server failing (no connection, a dropped one, an answer that is not
    /// what the contract says) rather than the server refusing or something on this side: what went wrong.
    public static func exchangeFailure(_ error: any Error) -> (any Error)? {
        guard from(error) == nil, let error = error as? ClientError else { return nil }
        return error.underlyingError
    }

    /// The problem inside an error thrown by the generated client, if there is one.
    public static func from(_ error: any Error) -> DisposableProblem? {
        if let problem = error as? DisposableProblem { return problem }
        if let error = error as? ClientError { return from(error.underlyingError) }
        return nil
    }
}

/// Turns every `application/problem+json` answer into a thrown ``DisposableProblem``, whatever the operation.
struct ProblemReader: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.headerFields[.contentType]?.hasPrefix("application/problem+json") == true else { return (response, responseBody) }
        let bytes = try await Data(collecting: responseBody ?? HTTPBody(), upTo: 1 << 16)
        let members = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
        var extensions: [String: String] = [:]
        for (name, value) in members where !["type", "title", "detail", "status"].contains(name) {
            if let text = value as? String { extensions[name] = text }
        }
        throw DisposableProblem(
            status: response.status.code, type: members["type"] as? String ?? "about:blank",
            title: members["title"] as? String ?? response.status.reasonPhrase,
            detail: members["detail"] as? String ?? "The server answered \(response.status.code).", extensions: extensions,
            retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) })
    }
}
