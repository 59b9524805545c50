import Foundation
import Hummingbird
import Testing

@testable import DisposableCore
@testable import DisposableFeatures
@testable import DisposablePlatform
@testable import DisposableServer
@testable import DisposableWeb

/// OPS-2: `/metrics` in Prometheus's text format, for this machine, the metrics token or an admin.
@Suite("Metrics (OPS-2)")
struct MetricsTests {
    @Test("A local Prometheus reads requests, uploads by outcome, the render queue, live streams and bytes stored")
    func scrape() async throws {
        try await TestApp.run(.sqlite, live: true) { app in
            let organizer = try await app.userToken()
            let event = try await app.createEvent(token: organizer)
            let id = event["id"] as! String
            let photo = try #require(try await app.upload(try await TestImages.jpeg(), event: id, token: organizer).string("id"))
            _ = try await app.waitUntilProcessed(photo, token: organizer)
            _ = try await app.upload(Data("not a photo".utf8), event: id, token: organizer)

            let metrics = try await app.call(.get, "/metrics")  // over a real connection from 127.0.0.1
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = metrics.text
            // Where a photo's time goes: each step timed.
            let steps = ["receive", "check", "store", "record", "render", "write-derivatives", "mark-ready"].map { step in
                "disposable_ingest_step_seconds_count{step=\"\(step)\"}"
            }
            for expected in [
                "disposable_uploads_total{outcome=\"accepted\"}", "disposable_uploads_total{outcome=\"unsupported-format\"}",
                "# TYPE disposable_render_queue_depth gauge", "disposable_live_streams", "disposable_bytes_stored",
                "disposable_render_seconds", "hb_requests",
            ] + steps {
                #expect(text.contains(expected), "\(expected) missing from /metrics")
            }
            let stored = text.split(separator: "\n").first { $0.hasPrefix("disposable_bytes_stored ") }
            #expect(stored.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 > 0 } == true)
        }
    }

    @Test("From elsewhere: the metrics token or an admin; not a guest, an organizer or a wrong token")
    func access() async throws {
        try await TestApp.run(.sqlite, configure: { $0.metricsToken = "a-long-metrics-token-1234" }) { app in
            #expect(try await app.call(.get, "/metrics", headers: [.authorization: "Bearer a-long-metrics-token-1234"]).status == .ok)
            try await app.call(.get, "/metrics", headers: [.authorization: "Bearer a-long-metrics-token-1235"]).expectProblem(.forbidden)
            try await app.call(.get, "/metrics", token: try await app.userToken()).expectProblem(.forbidden)
            #expect(try await app.call(.get, "/metrics", token: try await app.adminToken()).status == .ok)
        }
    }

    @Test("--metrics-port: a second listener with /metrics alone, for whoever reaches it; the main port still guards it")
    func separatePort() async throws {
        let metricsPort = try freePort()
        try await TestApp.run(
            .sqlite, live: true,
            configure: {
                $0.metricsPort = metricsPort
                $0.trustedProxies = try! TrustedProxies("127.0.0.1")
            }
        ) { app in
            // Through a trusted proxy, a remote Prometheus is refused on the main port…
            let remote: HTTPFields = [.init("X-Forwarded-For")!: "203.0.113.9"]
            try await app.call(.get, "/metrics", headers: remote).expectProblem(.forbidden)
            // …and served on the metrics port, which knows no forwarding and serves nothing else.
            let base = "http://127.0.0.1:\(metricsPort)"
            let scraped = try await get(base + "/metrics", headers: [("X-Forwarded-For", "203.0.113.9")])
            #expect(scraped.status == 200)
            #expect(scraped.text.contains("# TYPE disposable_render_queue_depth gauge"))
            #expect(try await get(base + "/healthz").status == 404)
            #expect(try await get(base + "/api/v1/status").status == 404)
        }
    }
}
