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
    /// An event photo's first look (issue 41): its thumbnail, a few milliseconds each, apart from the long renders.
    static let firstLooks = started(threads: System.coreCount)
    /// Short CPU work a request waits on: bcrypt, an image header.
    static let requests = started(threads: System.coreCount)

    private static func started(threads: Int) -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }
}
