import NIOCore
import NIOPosix

/// Thread pools for blocking work, one per kind, so that no kind queues behind another.
///
/// On a 2-core machine a wedding's burst of 12 MP renders keeps a pool busy for minutes; a sign-in, an
/// upload's header check, a file read or a database query must not wait in that queue. File reads and
/// writes use `NIOThreadPool.singleton`; each SQLite engine has a thread of its own.
///
/// The pool that asks libvips for pixels runs at a low CPU priority (`VipsImageProcessor`): a phone's first look
/// makes a photo visible at its acknowledgement, so the server's own renders only have to follow — they take the CPU
/// that requests leave, and a guest's upload or a gallery page never waits for a render's time slice.
package enum WorkPools {
    /// Whole-image renders by the media workers and collages: background work, up to seconds each.
    package static let rendering = started(threads: System.coreCount)
    /// A phone's first look, read and written again while its upload waits (libjpeg alone, never libvips: see
    /// `vs_first_look`): half a millisecond each, never queued behind a render.
    package static let firstLooks = started(threads: System.coreCount)
    /// Short CPU work a request waits on: bcrypt, an image header.
    package static let requests = started(threads: System.coreCount)

    private static func started(threads: Int) -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }
}
