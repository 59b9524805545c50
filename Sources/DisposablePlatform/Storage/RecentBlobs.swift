import DisposableCore
import NIOConcurrencyHelpers
import NIOCore

/// Small blobs read lately, kept in memory for a minute (PERF-3): a gallery asks for the same thumbnails
/// again and again, and a read from memory skips the trip to the file thread pool, which costs more than
/// the read itself. Bounded in bytes; the oldest entry goes first. Deletes through this instance's store
/// remove entries at once; the minute bounds how long a file deleted by another instance stays served.
package final class RecentBlobs: Sendable {
    private struct Entry {
        let bytes: ByteBuffer
        let expires: NIODeadline
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys in the order they came in (a key can appear again after it expired and was re-read).
        var arrivals = CircularBuffer<String>()
        var byteCount = 0

        mutating func remove(_ key: String) {
            if let entry = entries.removeValue(forKey: key) { byteCount -= entry.bytes.readableBytes }
        }
    }

    private let state = NIOLockedValueBox(State())
    package let byteLimit: Int
    package let entryLimit: Int
    package let lifetime: TimeAmount

    package init(byteLimit: Int = 32 << 20, entryLimit: Int = 256 << 10, lifetime: TimeAmount = .seconds(60)) {
        self.byteLimit = byteLimit
        self.entryLimit = entryLimit
        self.lifetime = lifetime
    }

    package func get(_ key: String) -> ByteBuffer? {
        state.withLockedValue { state in
            guard let entry = state.entries[key] else { return nil }
            guard entry.expires > .now() else {
                state.remove(key)
                return nil
            }
            return entry.bytes
        }
    }

    package func set(_ key: String, _ bytes: ByteBuffer) {
        guard bytes.readableBytes <= entryLimit else { return }
        let expires = NIODeadline.now() + lifetime
        state.withLockedValue { state in
            state.remove(key)
            while state.byteCount + bytes.readableBytes > byteLimit, let oldest = state.arrivals.popFirst() {
                state.remove(oldest)
            }
            state.entries[key] = Entry(bytes: bytes, expires: expires)
            state.arrivals.append(key)
            state.byteCount += bytes.readableBytes
        }
    }

    package func remove(_ key: String) {
        state.withLockedValue { $0.remove(key) }
    }

    package func remove(prefix: String) {
        state.withLockedValue { state in
            for key in state.entries.keys where key.hasPrefix(prefix) { state.remove(key) }
        }
    }
}
