import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableWeb

/// One Server-Sent Event as received.
struct ReceivedEvent: Sendable {
    let id: Int64?
    let name: String?
    let data: String
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
}

/// Reads a live `text/event-stream` over a real connection (AsyncHTTPClient), like a browser's EventSource.
///
/// One task reads the body for the client's whole life and keeps what arrives; `next` only looks at that.
/// (Racing the body's iterator against a timer would cancel it on every timeout, which ends the stream.)
final class SSEClient: @unchecked Sendable {
    private let received = NIOLockedValueBox(Received())
    private let reader: Task<Void, Never>
    private var buffer = ""
    /// Comment lines (`: heartbeat`) seen so far.
    private(set) var comments: [String] = []
    let status: Int

    private struct Received {
        var text = ""
        var ended = false
    }

    private init(response: HTTPClientResponse) {
        status = Int(response.status.code)
        let received = received
        reader = Task {
            do {
                for try await chunk in response.body { received.withLockedValue { $0.text += String(buffer: chunk) } }
            } catch {}
            received.withLockedValue { $0.ended = true }
        }
    }

    deinit { reader.cancel() }  // the connection drops

    /// Whether the server ended the stream.
    var ended: Bool { received.withLockedValue { $0.ended } }

    /// `token` nil: a screen that is not signed in (the venue wall).
    static func connect(_ url: String, token: String?, lastEventID: Int64? = nil) async throws -> SSEClient {
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
        // The deadline covers the response head only (the stream itself may last as long as the test).
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return SSEClient(response: response)
    }

    /// The next event, or nil if none comes within `timeout`. The default is generous: it only runs out
    /// when an event never comes, and the whole suite shares two cores.
    func next(timeout: Duration = .seconds(60)) async throws -> ReceivedEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (text, ended) = received.withLockedValue { received in
                defer { received.text = "" }
                return (received.text, received.ended)
            }
            buffer += text
            if let event = takeEvent() { return event }
            guard !ended, ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Reads `count` events (failing the caller if they do not arrive in time).
    func next(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [ReceivedEvent] {
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
