import DisposableClient
import Foundation

/// What a client command reports when it cannot do its job, with the exit code scripts can tell apart:
/// 1 the server refused (its sentence is printed), 3 not logged in, 4 the server could not be reached or failed.
/// (2 is a mistake in the command line itself, as ArgumentParser reports it.)
enum CLIError: Error, CustomStringConvertible {
    case notLoggedIn
    case refused(DisposableProblem)
    case unreachable(String)
    case failed(String)

    var description: String {
        switch self {
        case .notLoggedIn: "Not logged in: run `disposable login --server URL --email E` first."
        case .refused(let problem): problem.detail
        case .unreachable(let detail): detail
        case .failed(let detail): detail
        }
    }

    var exitCode: Int32 {
        switch self {
        case .notLoggedIn: 3
        case .refused(let problem): problem.status >= 500 ? 4 : 1
        case .unreachable: 4
        case .failed: 1
        }
    }

    /// Any error of a client command, as one of these.
    static func from(_ error: any Error, server: String?) -> CLIError {
        if let error = error as? CLIError { return error }
        if let problem = DisposableProblem.from(error) {
            return problem.status == 401 ? .refused(problem.explained("Log in again: `disposable login`.")) : .refused(problem)
        }
        guard let failure = DisposableProblem.exchangeFailure(error) else { return .failed("\(error.localizedDescription)") }
        let place = server.map { " \($0)" } ?? ""
        return .unreachable("Could not talk to the server\(place): \(failure).")
    }
}

extension DisposableProblem {
    func explained(_ hint: String) -> DisposableProblem {
        DisposableProblem(status: status, type: type, title: title, detail: "\(detail) \(hint)", extensions: extensions, retryAfter: retryAfter)
    }
}
