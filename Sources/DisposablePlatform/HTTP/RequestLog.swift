import DisposableCore
import Hummingbird
import Logging
import Synchronization

/// Where every answered request is told — the log (at debug level) now, metrics later. The router's middleware
/// and the media fast path (which answers in front of the router) both report here.
package final class RequestLog: Sendable {
    package let logger: Logger
    /// Counted for the fast path only: the router's requests are what every HTTP metric already sees.
    private let inFront = Atomic<Int>(0)

    package init(logger: Logger) {
        self.logger = logger
    }

    /// `path` without its query: signed links carry their signature there. `inFront`: answered by the media
    /// fast path, before the router.
    /// The path is only built when the log is at debug level: the fast path answers 90,000 requests a second.
    /// `logger`: the request's own (it carries the request id), when there is one.
    package func record(method: String, path: @autoclosure () -> String, status: Int, inFront: Bool = false, logger requestLogger: Logger? = nil) {
        if inFront { self.inFront.add(1, ordering: .relaxed) }
        (requestLogger ?? logger).debug("\(method) \(path()) \(status)\(inFront ? " (fast path)" : "")")
    }

    /// Requests the fast path answered so far.
    package var answeredInFront: Int { inFront.load(ordering: .relaxed) }
}

/// Reports every request the router answers to the `RequestLog`, errors included, with the request's own logger
/// (its lines carry `hb.request.id`).
package struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    package let log: RequestLog

    package init(log: RequestLog) {
        self.log = log
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            log.record(method: request.method.rawValue, path: request.uri.path, status: response.status.code, logger: context.logger)
            return response
        } catch let error as HTTPResponseError {
            log.record(method: request.method.rawValue, path: request.uri.path, status: error.status.code, logger: context.logger)
            throw error
        } catch {
            log.record(method: request.method.rawValue, path: request.uri.path, status: 500, logger: context.logger)
            throw error
        }
    }
}
