import DisposableCore
import DisposablePlatform
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// LIVE-2: on PostgreSQL, listens for other instances' commits (`pg_notify` in `ChangeLogRepository.append`) and
/// wakes this instance's subscribers; and for their other writes (`ChangeLogRepository.announceWrite`), after which
/// what this instance remembers for reads is forgotten. If the connection drops, it forgets that too, reconnects
/// and re-reads every followed event, so a lost notification only costs a little delay.
package struct PostgresChangeListener: Service {
    package let url: String
    package let hub: ChangeHub
    /// Another instance wrote (or this one cannot tell, having lost the channel).
    package let onWriteElsewhere: @Sendable () -> Void
    package let logger: Logger

    package init(url: String, hub: ChangeHub, onWriteElsewhere: @escaping @Sendable () -> Void, logger: Logger) {
        self.url = url
        self.hub = hub
        self.onWriteElsewhere = onWriteElsewhere
        self.logger = logger
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await listen()
                } catch {
                    if !Task.isCancelled { logger.warning("Change notifications interrupted, reconnecting: \(error)") }
                }
                onWriteElsewhere()
                for eventID in await hub.followedEvents { await hub.refresh(eventID) }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func listen() async throws {
        var configuration = try PostgresURL(url).connectionConfiguration()
        configuration.options.connectTimeout = .seconds(10)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await connection.listen(on: ChangeLogRepository.channel) { notifications in
                    for try await notification in notifications { await hub.notified(notification.payload) }
                }
            }
            group.addTask {
                try await connection.listen(on: ChangeLogRepository.writesChannel) { notifications in
                    for try await _ in notifications { onWriteElsewhere() }
                }
            }
            // Either ending means the connection is gone: the loop reconnects.
            try await group.next()
            group.cancelAll()
        }
    }
}
