import NIOCore
import NIOPosix

/// Thread pools for blocking work, one per kind, so that no kind queues behind another.
///
/// On a 2-core machine a wedding's burst of 12 MP renders keeps a pool busy for minutes; a sign-in, an
/// upload's header check, a file read or a database query must not wait in that queue. File reads and
/// writes use `NIOThreadPool.singleton`; each SQLite engine has a thread of its own.
enum WorkPools {
    /// Whole-image renders by the media workers: background work, up to seconds each.
    static let rendering = started(threads: System.coreCount)
    /// An event photo's thumbnail made first, apart from the long renders. More threads than cores:
    /// on event night the media workers (3 × cores + 1 by default) all take thumbnails while any wait, so that the
    /// thumbnails hold their share of the CPU against the requests' threads (the visible p99 on 2 cores: 22 s with 2
    /// at once, 1.0–5.2 s with 6 — BENCHMARKS.md); previews, collages and library renders stay `rendering`'s.
    static let thumbnails = started(threads: 4 * System.coreCount)
    /// Short CPU work a request waits on: bcrypt, an image header.
    static let requests = started(threads: System.coreCount)

    private static func started(threads: Int) -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }
}
