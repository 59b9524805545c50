import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// Crash reports: an error a page meets in a browser is sent here (by `app.js`), counted in `/metrics`
/// (`disposable_client_errors_total`) and kept for the admin's panel — the last 100, with the page and the browser.
/// Nothing goes to a third party; anyone may report (guests' pages fail too), within a rate per address.
package struct ClientErrorService: Sendable {
    let rows: ClientErrorRepository
    package let clock: any AppClock
    /// Reports per client address.
    package let limiter: RateLimiter

    init(rows: ClientErrorRepository, clock: any AppClock, limiter: RateLimiter) {
        self.rows = rows
        self.clock = clock
        self.limiter = limiter
    }

    /// 20 reports at once from an address, then one every 30 seconds: a page failing in a loop cannot flood the table.
    package static let perAddress = RateLimit(burst: 20, refillEvery: .seconds(30))
    package static let kept = 100
    package static let messageLimit = 1000
    package static let stackLimit = 4000

    package func report(_ report: ClientErrorReport, userAgent: String?, client: String) async throws {
        let message = Self.clean(report.message, max: Self.messageLimit)
        guard !message.isEmpty else { throw Problem.invalidField("message", "Say what went wrong in “message”.") }
        // A path of ours, without its query or fragment: those may hold a join key or a personal link.
        let path = String(report.page.prefix { $0 != "?" && $0 != "#" }.prefix(300))
        guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem.invalidField("page", "“page” is the path of one of this site's pages, such as /library.")
        }
        try await limiter.take(address: client)
        let error = ClientErrorJSON(
            id: newID(), at: clock.now, page: path, message: message,
            stack: report.stack.map { Self.clean($0, max: Self.stackLimit) }.flatMap { $0.isEmpty ? nil : $0 },
            browser: DeviceName.from(userAgent: userAgent))
        try await rows.insert(error, keep: Self.kept)
        Metric.clientError()
    }

    package func recent() async throws -> [ClientErrorJSON] {
        try await rows.recent(limit: Self.kept)
    }

    /// Printable text (line breaks kept), cut at `max` characters: a long stack is shortened, not refused.
    package static func clean(_ text: String, max: Int) -> String {
        let kept = text.unicodeScalars.filter { $0 == "\n" || $0.properties.generalCategory != .control }
        return String(String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespacesAndNewlines).prefix(max))
    }
}
