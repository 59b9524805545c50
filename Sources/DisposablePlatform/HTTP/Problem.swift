import DisposableAPI
import DisposableCore
import Foundation
import Hummingbird
import NIOCore

/// An RFC 9457 problem: every error the API returns, with a sentence a person understands (API-1).
public struct Problem: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    /// Short slug; the `type` URI ends with it, e.g. `/problems/shot-limit-reached`.
    public let slug: String
    public let title: String
    public let detail: String
    /// Extra members of the problem object (e.g. `field`, `existingId`).
    public var extensions: [String: String] = [:]
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ slug: String, title: String, detail: String) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let document = ProblemDocument(type: "/problems/\(slug)", title: title, detail: detail, status: status.code, extensions: extensions)
        let data = try JSONEncoder.sorted.encode(document)
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}

extension Problem {
    package static func badRequest(_ detail: String, field: String? = nil) -> Problem {
        var problem = Problem(.badRequest, "invalid-request", title: "Invalid request", detail: detail)
        if let field { problem.extensions["field"] = field }
        return problem
    }

    /// A field whose value we refuse; `detail` names the field (EV-2).
    package static func invalidField(_ field: String, _ detail: String) -> Problem {
        var problem = Problem(.unprocessableContent, "invalid-field", title: "Invalid value", detail: detail)
        problem.extensions["field"] = field
        return problem
    }

    package static let unauthorized = Problem(
        .unauthorized, "unauthorized", title: "Not signed in",
        detail: "You need to sign in (or join the event) to do this.")

    package static let forbidden = Problem(
        .forbidden, "forbidden", title: "Not allowed", detail: "You are not allowed to do this.")

    package static func notFound(_ detail: String) -> Problem {
        Problem(.notFound, "not-found", title: "Not found", detail: detail)
    }

    package static func conflict(_ slug: String, _ detail: String) -> Problem {
        Problem(.conflict, slug, title: "Conflict", detail: detail)
    }

    package static func tooManyRequests(retryAfterSeconds: Int) -> Problem {
        var problem = Problem(
            .tooManyRequests, "rate-limited", title: "Too many attempts",
            detail: "Too many attempts. Please wait \(retryAfterSeconds) seconds and try again.")
        problem.headers[.retryAfter] = String(retryAfterSeconds)
        return problem
    }

    package static let payloadTooLarge = Problem(
        .contentTooLarge, "too-large", title: "Too large", detail: "The request body is too large.")
}

extension Problem {
    package static let storageUnavailable = Problem(
        .serviceUnavailable, "storage-unavailable", title: "Storage unavailable",
        detail: "The server cannot reach its photo storage just now: nothing was saved. Please try again in a moment.")
}
