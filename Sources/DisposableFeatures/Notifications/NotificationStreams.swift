import DisposableCore
import DisposablePlatform
import NIOConcurrencyHelpers

/// The open notification streams of each session. Every page a person opens starts one (the bell is on every
/// page) and a browser that moves on does not say so: the server only learns it at its next write. So instead
/// of refusing a session's next stream, as the event feeds' slots do, the newest ones win: opening one past
/// `perToken` tells the oldest to stop at its next look (within two seconds).
package final class NotificationStreams: Sendable {
    package let perToken: Int
    private let state = NIOLockedValueBox<(next: Int, open: [String: [Int]])>((0, [:]))

    package init(perToken: Int = 6) {
        self.perToken = perToken
    }

    package struct Stream: Sendable {
        package let streams: NotificationStreams
        package let tokenHash: String
        package let id: Int

        /// False once newer streams of the session have taken its place.
        package var current: Bool { streams.state.withLockedValue { $0.open[tokenHash]?.contains(id) ?? false } }

        package func close() {
            streams.state.withLockedValue { state in
                state.open[tokenHash]?.removeAll { $0 == id }
                if state.open[tokenHash]?.isEmpty == true { state.open[tokenHash] = nil }
            }
        }
    }

    package func open(for tokenHash: String) -> Stream {
        let perToken = perToken
        let id = state.withLockedValue { state in
            state.next += 1
            var ids = state.open[tokenHash, default: []]
            ids.append(state.next)
            if ids.count > perToken { ids.removeFirst(ids.count - perToken) }
            state.open[tokenHash] = ids
            return state.next
        }
        return Stream(streams: self, tokenHash: tokenHash, id: id)
    }
}
