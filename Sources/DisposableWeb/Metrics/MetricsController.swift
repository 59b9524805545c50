import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Hummingbird

/// `GET /metrics` (OPS-2). Outside the session routes, with its own rule: a direct loopback connection (a Prometheus
/// on the same machine — never a request relayed by a trusted proxy, whatever its headers say), the
/// `--metrics-token` bearer, or an admin's session; anyone else gets 403. On the separate
/// `--metrics-port` listener (`open`), whoever reaches the port may read: the operator keeps it to their network.
package struct MetricsController {
    package let statistics: InstanceStatistics
    package let liveStreams: LiveStreamSlots
    package let accounts: AccountService
    package let token: String?
    package var open = false

    package init(statistics: InstanceStatistics, liveStreams: LiveStreamSlots, accounts: AccountService, token: String?, open: Bool = false) {
        self.statistics = statistics
        self.liveStreams = liveStreams
        self.accounts = accounts
        self.token = token
        self.open = open
    }

    package func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("/metrics", use: metrics)
    }

    @Sendable package func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        let allowed = try await open ? true : mayRead(request, context: context)
        guard allowed else {
            throw Problem(
                .forbidden, "metrics-forbidden", title: "Not for you",
                detail: "Metrics are for this machine, the metrics token, or an admin's session.")
        }
        let (stored, queued) = try await statistics.storage()
        let text = InstanceMetrics.scrape(stored: stored, queued: queued, live: liveStreams.total)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }

    private func mayRead(_ request: Request, context: AppRequestContext) async throws -> Bool {
        // This machine may read them, unless the request came through a proxy (trusted or not): then anyone could.
        if !context.viaTrustedProxy, !ClientAddressMiddleware<AppRequestContext>.isForwarded(request), let peer = context.remoteAddress?.ipAddress,
            Self.isLoopback(peer)
        {
            return true
        }
        let bearer = request.headers[.authorization].flatMap(AuthenticationMiddleware.bearerToken)
        if let token, let bearer, bearer.equalsInConstantTime(token) { return true }
        guard let session = bearer ?? request.cookies[SessionCookie.name]?.value, !session.isEmpty else { return false }
        if case .user(let user, _) = try await accounts.identity(for: session), user.isAdmin { return true }
        return false
    }

    package static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address == "::ffff:127.0.0.1"
    }
}
