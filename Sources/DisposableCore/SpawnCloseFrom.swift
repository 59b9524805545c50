#if canImport(Glibc)
    import Glibc

    /// glibc's (2.34+) "close every descriptor from `lowest` on in the child", which Swift's Glibc module does not
    /// import (it is a GNU extension). A child started by `posix_spawn` must not inherit our sockets: ffmpeg or a test's
    /// nginx holding an accepted connection would keep it open after the server closed it.
    @_silgen_name("posix_spawn_file_actions_addclosefrom_np")
    package func posix_spawn_file_actions_addclosefrom_np(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32
#endif
