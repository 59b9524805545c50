import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// LIVE-2: on PostgreSQL, listens for other instances' commits (`pg_notify` in `ChangeLogRepository.append`) and
/// wakes this instance's subscribers. If the connection drops, it reconnects and re-reads every
/// followed event, so a lost notification only costs a little delay.
struct PostgresChangeListener: Service {
    let url: String
    let hub: ChangeHub
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await listen()
                } catch {
                    if !Task.isCancelled { logger.warning("Change notifications interrupted, reconnecting: \(error)") }
                }
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
        try await connection.listen(on: ChangeLogRepository.channel) { notifications in
            for try await notification in notifications {
                await hub.refresh(notification.payload)
            }
        }
    }
}
