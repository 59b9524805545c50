/// Runs `body`, failing with a message naming `what` if it has not finished within `limit` (`body` is
/// cancelled then). AsyncHTTPClient's own deadline ends with the response head; this bounds the body too,
/// so a stalled answer fails its test instead of holding the whole suite.
@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

func withTimeLimit<T: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TestSetupError("\(what) got no whole answer within \(limit)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
