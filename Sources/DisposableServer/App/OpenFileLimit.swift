import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableWeb

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Raises the soft limit on open files to the hard one: every connection is a file, and the default soft
/// limit (often 1,024) would run out at a busy venue before any of our own caps.
public func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
}

#if canImport(Glibc)
    private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
    private let RLIMIT_NOFILE_VALUE = RLIMIT_NOFILE
#endif
