import Foundation
import ZIPFoundation

/// Where `disposable import` reads from: a folder, or a ZIP read entry by entry (a Takeout archive can be larger than
/// the free space: each photo is written to a temporary file only while it is sent).
protocol ImportSource {
    /// Every file, by its path inside the source ("/"-separated).
    var paths: [String] { get }
    /// A small file's bytes (a sidecar, a list); nil past `limit` bytes or when unreadable.
    func contents(_ path: String, limit: Int) -> Data?
    /// The file's own date (its modification time).
    func modified(_ path: String) -> Date?
    /// Runs `body` with a local file holding `path`; `Inflated` when it is larger than `limit` (before anything of it
    /// is written out).
    func withFile<T>(_ path: String, limit: Int64, _ body: (URL) async throws -> T) async throws -> T
}

extension ImportSource {
    /// A sidecar's bytes: nil past 1 MB.
    func contents(_ path: String) -> Data? { contents(path, limit: 1 << 20) }
}

struct FolderSource: ImportSource {
    let root: URL
    let paths: [String]

    init(_ root: URL) {
        self.root = root.standardizedFileURL
        var found: [String] = []
        let walker = FileManager.default.enumerator(at: self.root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        while let item = walker?.nextObject() as? URL {
            guard (try? item.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            found.append(String(item.standardizedFileURL.path.dropFirst(self.root.path.count).drop { $0 == "/" }))
        }
        paths = found.sorted()
    }

    func contents(_ path: String, limit: Int) -> Data? {
        let url = root.appendingPathComponent(path)
        guard let size = (try? url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize, size <= limit else { return nil }
        return try? Data(contentsOf: url)
    }

    func modified(_ path: String) -> Date? {
        (try? root.appendingPathComponent(path).resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
    }

    func withFile<T>(_ path: String, limit: Int64, _ body: (URL) async throws -> T) async throws -> T {
        try await body(root.appendingPathComponent(path))
    }
}

/// An entry that inflated past the size its archive declares for it (or past what may be read), or that is larger
/// than the server takes: never unpacked.
struct Inflated: Error, CustomStringConvertible {
    let path: String
    var tooLarge: Int64? = nil
    var description: String {
        if let tooLarge { return "larger than the \(tooLarge / 1_000_000) MB the server takes: not unpacked" }
        return "inflates past the size the archive declares for it (a damaged or hostile archive): not read"
    }
}

struct ZipSource: ImportSource {
    let archive: Archive
    let entries: [String: Entry]
    let paths: [String]

    init(_ file: URL) throws {
        do {
            archive = try Archive(url: file, accessMode: .read)
        } catch {
            throw CLIError.failed("\(file.path) cannot be read as a ZIP archive.")
        }
        var entries: [String: Entry] = [:]
        for entry in archive where entry.type == .file {
            // Entries are only ever read, never written out under their own names: a "../" in one cannot escape.
            entries[entry.path] = entry
        }
        self.entries = entries
        paths = entries.keys.sorted()
    }

    func contents(_ path: String, limit: Int) -> Data? {
        guard let entry = entries[path], entry.uncompressedSize <= UInt64(limit) else { return nil }
        var data = Data()
        guard (try? extract(entry, limit: UInt64(limit)) { data.append($0) }) != nil else { return nil }
        return data
    }

    /// Inflates `entry` chunk by chunk, stopping at `limit` bytes or at the size its directory declares, whichever
    /// comes first: a ZIP bomb (an entry that claims 1 KB and inflates to gigabytes) ends here, not in memory or
    /// on disk.
    private func extract(_ entry: Entry, limit: UInt64, _ consume: (Data) throws -> Void) throws {
        let cap = min(limit, entry.uncompressedSize)
        var count: UInt64 = 0
        _ = try archive.extract(entry) { chunk in
            count += UInt64(chunk.count)
            guard count <= cap else { throw Inflated(path: entry.path) }
            try consume(chunk)
        }
    }

    func modified(_ path: String) -> Date? {
        entries[path]?.fileAttributes[.modificationDate] as? Date
    }

    func withFile<T>(_ path: String, limit: Int64, _ body: (URL) async throws -> T) async throws -> T {
        guard let entry = entries[path] else { throw CLIError.failed("\(path) is not in the archive.") }
        guard entry.uncompressedSize <= UInt64(max(0, limit)) else { throw Inflated(path: path, tooLarge: limit) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw CLIError.failed("A temporary file for \(path) could not be made.")
        }
        do {
            defer { try? handle.close() }
            try extract(entry, limit: UInt64(max(0, limit))) { try handle.write(contentsOf: $0) }
        }
        return try await body(file)
    }
}
