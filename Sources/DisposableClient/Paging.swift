import Foundation
import OpenAPIRuntime

extension DisposableClient {
    /// Every photo of an event the caller may see (or only theirs), newest first, page after page as the sequence is
    /// read.
    public func photos(in event: String, mine: Bool = false, pageSize: Int = 100) -> AsyncThrowingStream<Components.Schemas.Photo, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var cursor: String? = nil
                    repeat {
                        let page = try await call {
                            try await api.listPhotos(path: .init(id: event), query: .init(cursor: cursor, limit: pageSize, mine: mine ? true : nil))
                                .ok.body.json
                        }
                        for photo in page.items { continuation.yield(photo) }
                        cursor = page.nextCursor
                    } while cursor != nil && !Task.isCancelled
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Streams the event's photos as a ZIP into `file` (written beside it first, then moved into place, so an
    /// interrupted download never leaves a file that looks whole).
    /// - Returns: the bytes written.
    @discardableResult
    public func downloadArchive(of event: String, to file: URL, progress: Progress? = nil) async throws -> Int64 {
        let partial = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).part")
        _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
        let handle = try FileHandle(forWritingTo: partial)
        var written: Int64 = 0
        do {
            let body = try await call { try await api.downloadEventArchive(path: .init(id: event)).ok.body.applicationZip }
            let total: Int64 = if case .known(let length) = body.length { length } else { -1 }
            for try await chunk in body {
                try handle.write(contentsOf: chunk)
                written += Int64(chunk.count)
                progress?(written, total)
            }
            try handle.synchronize()
            try handle.close()
            _ = try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: partial, to: file)
            return written
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: partial)
            throw DisposableProblem.from(error) ?? error
        }
    }
}
