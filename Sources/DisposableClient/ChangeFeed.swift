import Foundation
import OpenAPIRuntime

/// One change of an event's feed: its sequence number and what happened.
public struct EventChange: Sendable, Hashable {
    /// The change's position in the feed; resume after it with `after:`.
    public let seq: Int64
    public let kind: Components.Schemas.ChangeKind
    public let change: Components.Schemas.Change
}

extension DisposableClient {
    /// The event's live change feed (LIVE-1) as an `AsyncSequence`.
    ///
    /// It follows the Server-Sent Events stream and, when the connection drops, connects again with
    /// `Last-Event-ID` set to the last change received, so no change is missed or repeated. It ends by throwing when
    /// the server refuses (a ``DisposableProblem``: the event is gone, the token was revoked…), and when the task
    /// iterating it is cancelled.
    /// - Parameters:
    ///   - after: start after this sequence number (a gallery page's `changeSeq`); nil: from now on.
    ///   - wall: read a venue wall's feed by its key instead of an event's.
    public func changes(in event: String, after: Int64? = nil, reconnectDelay: Duration = .seconds(1)) -> AsyncThrowingStream<EventChange, any Error>
    {
        follow(after: after, reconnectDelay: reconnectDelay, of: Components.Schemas.Change.self) { [streaming] last in
            try await streaming.getEventChanges(
                path: .init(id: event), headers: .init(lastEventID: last, accept: [.init(contentType: .textEventStream)])
            ).ok.body.textEventStream
        } element: { id, change in
            EventChange(seq: id, kind: change.kind, change: change)
        }
    }

    /// The library's change feed (LIB-4) as it happens: each asset at its latest revision, after `revision` (nil:
    /// from now on), resumed after a dropped connection as ``changes(in:after:reconnectDelay:)`` is.
    public func libraryChangeStream(after revision: Int64? = nil, reconnectDelay: Duration = .seconds(1))
        -> AsyncThrowingStream<LibraryChange, any Error>
    {
        follow(after: revision, reconnectDelay: reconnectDelay, of: LibraryChange.self) { [streaming] last in
            try await streaming.getLibraryChanges(
                query: .init(since: last), headers: .init(lastEventID: last, accept: [.init(contentType: .textEventStream)])
            ).ok.body.textEventStream
        } element: { _, change in
            change
        }
    }

    /// A Server-Sent Events stream followed for good: connected again after a drop with the last id received, so
    /// nothing is missed or repeated; ended by a refusal (a ``DisposableProblem``) or the iterating task's cancellation.
    private func follow<Payload: Decodable & Hashable & Sendable, Element: Sendable>(
        after: Int64?, reconnectDelay: Duration, of _: Payload.Type,
        open: @escaping @Sendable (Int64?) async throws -> HTTPBody,
        element: @escaping @Sendable (Int64, Payload) -> Element
    ) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var last = after
                var delay = reconnectDelay
                while !Task.isCancelled {
                    do {
                        let events = try await open(last).asDecodedServerSentEventsWithJSONData(of: Payload.self, decoder: Self.decoder)
                        for try await event in events {
                            guard let id = event.id.flatMap({ Int64($0) }), let data = event.data else { continue }
                            last = id
                            delay = reconnectDelay
                            continuation.yield(element(id, data))
                        }
                    } catch {
                        if let problem = DisposableProblem.from(error), problem.status != 429, problem.status < 500 {
                            continuation.finish(throwing: problem)
                            return
                        }
                        if Task.isCancelled { break }
                    }
                    // Dropped (or closed by the server): wait a little, longer each time up to 30 s, and resume.
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(30))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Decodes what the API writes (times with milliseconds).
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        let transcoder = APIDateTranscoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try transcoder.decode(try decoder.singleValueContainer().decode(String.self))
        }
        return decoder
    }
}
