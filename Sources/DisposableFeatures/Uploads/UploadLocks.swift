import DisposableCore
import DisposablePlatform
import Foundation
import NIOConcurrencyHelpers

/// One PATCH at a time per upload (tus: a second one gets 423 Locked). A HEAD — a client checking where to resume —
/// stops a PATCH still holding the lock (its connection may be long dead without the server knowing): the bytes it
/// had are kept, and the lock is free when the HEAD answers. Per instance, like the uploads' folder.
package actor UploadLocks {
    private struct Holder {
        let token: UUID
        let stop: @Sendable () -> Void
    }

    private var holders: [String: Holder] = [:]

    /// The lock, or nil when a PATCH holds it.
    package func acquire(_ upload: String, stop: @escaping @Sendable () -> Void) -> UUID? {
        guard holders[upload] == nil else { return nil }
        let token = UUID()
        holders[upload] = Holder(token: token, stop: stop)
        return token
    }

    package func release(_ upload: String, token: UUID) {
        guard holders[upload]?.token == token else { return }
        holders[upload] = nil
    }

    /// Stops the PATCH holding the lock, if any, and waits (up to 10 s) for it to let go.
    package func stopHolder(_ upload: String) async {
        guard let holder = holders[upload] else { return }
        holder.stop()
        for _ in 0..<200 where holders[upload]?.token == holder.token {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Cancels a PATCH's reading task, for a HEAD; a stop that comes before the task is known applies when it is.
package final class Stopper: Sendable {
    private let state = NIOLockedValueBox<(cancel: (@Sendable () -> Void)?, stopped: Bool)>((nil, false))

    package func set(_ cancel: @escaping @Sendable () -> Void) {
        let stopped = state.withLockedValue { state in
            state.cancel = cancel
            return state.stopped
        }
        if stopped { cancel() }
    }

    @Sendable package func stop() {
        let cancel = state.withLockedValue { state in
            state.stopped = true
            return state.cancel
        }
        cancel?()
    }
}
