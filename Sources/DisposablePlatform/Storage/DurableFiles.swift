import Crypto
import DisposableCore
import Foundation

/// The POSIX steps that make a file durable, with `errno` turned into errors we can act on.
package enum DurableFiles {
    package struct Failure: Error, CustomStringConvertible {
        package let operation: String
        package let code: Int32

        package init(operation: String, code: Int32) {
            self.operation = operation
            self.code = code
        }
        package var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
    }

    package static func check(_ result: Int32, _ operation: String) throws {
        guard result >= 0 else { throw error(operation) }
    }

    /// ENOSPC and EDQUOT become `StorageFull` so that uploads can answer 507.
    package static func error(_ operation: String, code: Int32 = errno) -> any Error {
        code == ENOSPC || code == EDQUOT ? StorageFull() : Failure(operation: operation, code: code)
    }

    /// Writes all of `data` to a new file and fsyncs it.
    package static func write(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try check(fd, "open")
        defer { close(fd) }
        try data.withUnsafeBytes { try writeAll(fd, $0) }
        try check(fsync(fd), "fsync")
    }

    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw error("write")
            }
            offset += written
        }
    }

    /// Renames into place, then fsyncs the folder so the new name itself survives a crash.
    package static func rename(_ source: String, to destination: String) throws {
        try check(Foundation.rename(source, destination), "rename")
        try syncDirectory(of: destination)
    }

    package static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try check(fd, "open directory")
        defer { close(fd) }
        try check(fsync(fd), "fsync directory")
    }

    /// Creates the missing folders above `path`, fsyncing each parent so that new names survive a crash.
    package static func makeParentDirectories(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue { return }
        try makeParentDirectories(of: directory)
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw error("mkdir") }
        try syncDirectory(of: directory)
    }
}

extension DurableFiles {
    /// A file made here (a video's playable copy) made durable before it is stored: fsynced, with its SHA-256 and size.
    package static func seal(_ path: String) throws -> (sha256: String, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try check(fd, "open \(path)")
        defer { close(fd) }
        var hasher = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            try check(count < 0 ? -1 : 0, "read \(path)")
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            size += Int64(count)
        }
        try check(fsync(fd), "fsync \(path)")
        return (hasher.finalize().hex, size)
    }
}
