import DisposableCore
import Metrics
import Prometheus
import Synchronization

/// OPS-2: what an operator watches, as Prometheus text at `GET /metrics`. Requests by route, their durations
/// and errors come from Hummingbird's `MetricsMiddleware`; the rest is counted where it happens (`Metric`) or
/// read when scraped (queue depth, live streams, bytes stored). swift-metrics has one backend per process, so
/// the registry is too: apps built in one process (the tests) share it.
package enum InstanceMetrics {
    package static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// Sets up the backend; call before anything counts.
    package static func start() { _ = registry }

    /// The numbers read at scrape time, then the whole registry as text.
    package static func scrape(stored: Int64, queued: Int, live: Int) -> [UInt8] {
        // Set and emitted under one lock: two apps in one process (the tests) scraping at once would otherwise
        // each answer with the other's numbers.
        return scraping.withLock { _ in
            registry.makeGauge(name: "disposable_render_queue_depth", help: "Photos waiting to be rendered (jobs).").set(Double(queued))
            registry.makeGauge(name: "disposable_live_streams", help: "Live streams open on this instance.").set(Double(live))
            registry.makeGauge(name: "disposable_bytes_stored", help: "Bytes stored: what accounts are charged for, and the derivatives made of it.")
                .set(Double(stored))
            return registry.emitToBuffer()
        }
    }

    private static let scraping = Mutex(())
}

/// The counters and timers the app records, by name, in one place.
package enum Metric {
    /// An upload's outcome: `accepted`, `duplicate`, or the problem's slug (`shot-limit-reached`, `storage-full`…).
    package static func upload(_ outcome: String) {
        Counter(label: "disposable_uploads_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// A phone's first look: `shown` (at upload), then `confirmed` or `refuted` by the server's thumbnail; or `refused`
    /// at upload (the upload's outcome too).
    package static func firstLook(_ outcome: String) {
        Counter(label: "disposable_first_looks_total", dimensions: [("outcome", outcome)]).increment()
    }

    package static func renderSeconds(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        renderTimer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private static let renderTimer = Timer(label: "disposable_render_seconds", preferredDisplayUnit: .seconds)

    /// The steps a photo goes through, timed one by one: where an ingested photo's time goes.
    package enum IngestStep: String, CaseIterable, Sendable {
        /// The body to a staging file, hashed and fsynced.
        case receive
        /// Format, header, whole JPEG, duplicate lookup.
        case check
        /// Recorded as a pending write, moved under its key (fsyncs).
        case store
        /// The transaction that takes the shot and records the photo.
        case record
        /// Decode, resize, encode: the libvips work of a preview, a video or a library asset (`disposable_render_seconds`
        /// too).
        case render
        /// The derivatives written (fsyncs).
        case writeDerivatives = "write-derivatives"
        /// The transaction that marks the photo ready (or its preview made), and the news to live streams.
        case markReady = "mark-ready"
    }

    /// Records how long `step` took, from `start` until now.
    package static func ingest(_ step: IngestStep, since start: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        ingestTimers[step]?.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private static let ingestTimers = Dictionary(
        uniqueKeysWithValues: IngestStep.allCases.map { step in
            (step, Timer(label: "disposable_ingest_step_seconds", dimensions: [("step", step.rawValue)], preferredDisplayUnit: .seconds))
        })

    package static func storageError() { storageErrors.increment() }
    package static func databaseError() { databaseErrors.increment() }
    /// Signed thumbnails answered in front of the router (`MediaShortcut`, which bypasses the router's metrics).
    package static func fastPathAnswer() { fastPathAnswers.increment() }
    /// An error a page met in a browser (`ClientErrorService`).
    package static func clientError() { clientErrors.increment() }

    // Made once, after `InstanceMetrics.start()`: a lookup by label on every thumbnail would cost the fast path.
    private static let storageErrors = Counter(label: "disposable_storage_errors_total")
    private static let databaseErrors = Counter(label: "disposable_database_errors_total")
    private static let fastPathAnswers = Counter(label: "disposable_fast_path_answers_total")
    private static let clientErrors = Counter(label: "disposable_client_errors_total")
}
