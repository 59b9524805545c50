import DisposableCore
import Foundation
import Hummingbird
import Logging
import NIOHTTP1

/// Turns every error into `application/problem+json`: no stack traces, no HTML, never a bare 500 text.
package struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return try problem.response(from: request, context: context)
        } catch let error as HTTPError {
            return try Self.problem(for: error).response(from: request, context: context)
        } catch is DatabaseUnavailable {
            Metric.databaseError()
            var problem = Problem(
                .serviceUnavailable, "database-unavailable", title: "Try again in a moment",
                detail: "The server cannot reach its database right now. Nothing was saved; please try again in a moment.")
            problem.headers[.retryAfter] = "5"
            return try problem.response(from: request, context: context)
        } catch let error as StorageUnavailable {
            Metric.storageError()
            context.logger.warning("\(error)")
            var problem = Problem.storageUnavailable
            problem.headers[.retryAfter] = "10"
            return try problem.response(from: request, context: context)
        } catch let error as SealedBlob.Unreadable {
            context.logger.error("\(error)")
            return try Problem(
                .internalServerError, "stored-file-damaged", title: "File damaged",
                detail: "This file is damaged in the server's storage and cannot be sent. The server's administrator has been told."
            ).response(from: request, context: context)
        } catch is HTTPParserError {
            // The body broke off mid-stream in a way no client means (a chunk size that is not hexadecimal…).
            return try Problem.badRequest("The request is not valid HTTP (its body's framing is broken). Nothing was kept.")
                .response(from: request, context: context)
        } catch is DecodingError {
            return try Problem.badRequest("The request body is not valid JSON for this route.")
                .response(from: request, context: context)
        } catch {
            context.logger.error("Unhandled error: \(String(reflecting: error))")
            return try Problem(
                .internalServerError, "internal", title: "Something went wrong",
                detail: "Something went wrong on the server. Please try again in a moment."
            ).response(from: request, context: context)
        }
    }

    /// Hummingbird's own errors (unknown route, body too large, …) in the same shape as ours.
    package static func problem(for error: HTTPError) -> Problem {
        switch error.status {
        case .notFound:
            return .notFound("There is nothing at this address.")
        case .contentTooLarge:
            return .payloadTooLarge
        case .methodNotAllowed:
            return Problem(
                .methodNotAllowed, "method-not-allowed", title: "Method not allowed",
                detail: "This address does not accept that method.")
        default:
            return Problem(
                error.status, "http-\(error.status.code)", title: error.status.reasonPhrase,
                detail: error.body ?? "The request could not be handled (\(error.status.reasonPhrase)).")
        }
    }
}
