import DisposableCore
import Logging
import NIOConcurrencyHelpers

/// A reverse proxy in front while no proxy is trusted (`--trusted-proxies`): forwarding headers arrive from this
/// machine, so every visitor looks like one client (one rate-limit budget for all) and like this machine (which
/// `/metrics` trusts). Said once in the log and, from then on, on the admin panel.
package final class UntrustedProxyNotice: Sendable {
    private let seen = NIOLockedValueBox(false)
    package let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    package var wasSeen: Bool { seen.withLockedValue { $0 } }

    /// A request with forwarding headers came from `peer` and no proxy is trusted.
    package func forwarded(from peer: String) {
        guard IPAddress.bytes(peer).map({ !AddressPolicy.isPublic($0) }) == true else { return }
        let first = seen.withLockedValue { wasSeen in
            defer { wasSeen = true }
            return !wasSeen
        }
        if first {
            logger.warning(
                "A reverse proxy seems to be in front of this server (forwarding headers from \(peer)), but no proxy is trusted: every visitor counts as one client. Start the server with --trusted-proxies \(peer)."
            )
        }
    }
}
