import AsyncHTTPClient
import Foundation
import NIOCore

/// One Server-Sent Event as received.
struct ReceivedEvent: Sendable {
    let id: Int64?
    let name: String?
    let data: String
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
}

/// Reads a live `text/event-stream` over a real connection (AsyncHTTPClient), like a browser's EventSource.
final class SSEClient: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var buffer = ""
    /// Comment lines (`: heartbeat`) seen so far.
    private(set) var comments: [String] = []
    let status: Int

    private init(response: HTTPClientResponse) {
        iterator = response.body.makeAsyncIterator()
        status = Int(response.status.code)
    }

    static func connect(_ url: String, token: String, lastEventID: Int64? = nil) async throws -> SSEClient {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(3600))
        return SSEClient(response: response)
    }

    /// The next event, or nil if none comes within `timeout`.
    func next(timeout: Duration = .seconds(10)) async throws -> ReceivedEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = takeEvent() { return event }
            guard ContinuousClock.now < deadline else { return nil }
            let remaining = deadline - ContinuousClock.now
            let chunk = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                var iterator = self.iterator
                group.addTask { try await iterator.next() }
                group.addTask { try await Task.sleep(for: remaining); return nil }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let chunk else { return takeEvent() }
            buffer += String(buffer: chunk)
        }
    }

    /// Reads `count` events (failing the caller if they do not arrive in time).
    func next(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [ReceivedEvent] {
        var events: [ReceivedEvent] = []
        while events.count < count, let event = try await next(timeout: timeout) { events.append(event) }
        return events
    }

    private func takeEvent() -> ReceivedEvent? {
        while let range = buffer.range(of: "\n\n") {
            let block = String(buffer[..<range.lowerBound])
            buffer.removeSubrange(..<range.upperBound)
            var id: Int64?, name: String?, data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { comments.append(String(line)); continue }
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "id": id = Int64(parts[1])
                case "event": name = parts[1]
                case "data": data.append(parts[1])
                default: break
                }
            }
            if !data.isEmpty { return ReceivedEvent(id: id, name: name, data: data.joined(separator: "\n")) }
        }
        return nil
    }
}
