import DisposableCore
import DisposablePlatform
import Foundation
import NIOConcurrencyHelpers

/// How many live streams each token holds open (one guest held 2,000). A browser needs one per tab.
package final class LiveStreamSlots: Sendable {
    package let perToken: Int
    private let open = NIOLockedValueBox<[String: Int]>([:])

    package init(perToken: Int) {
        self.perToken = perToken
    }

    package struct Slot: Sendable {
        package let slots: LiveStreamSlots
        package let tokenHash: String

        package init(slots: LiveStreamSlots, tokenHash: String) {
            self.slots = slots
            self.tokenHash = tokenHash
        }
        package func close() { slots.release(tokenHash) }
    }

    package func open(for tokenHash: String) throws -> Slot {
        let taken = open.withLockedValue { counts -> Bool in
            guard counts[tokenHash, default: 0] < perToken else { return false }
            counts[tokenHash, default: 0] += 1
            return true
        }
        guard taken else {
            throw Problem(
                .tooManyRequests, "too-many-streams", title: "Too many live views",
                detail: "This session already has \(perToken) live galleries open. Close a tab or two and try again.")
        }
        return Slot(slots: self, tokenHash: tokenHash)
    }

    private func release(_ tokenHash: String) {
        open.withLockedValue { counts in
            counts[tokenHash, default: 1] -= 1
            if counts[tokenHash] == 0 { counts[tokenHash] = nil }
        }
    }

    package func count(for tokenHash: String) -> Int { open.withLockedValue { $0[tokenHash] ?? 0 } }

    /// Every stream open on this instance (`/metrics`).
    package var total: Int { open.withLockedValue { $0.values.reduce(0, +) } }
}
