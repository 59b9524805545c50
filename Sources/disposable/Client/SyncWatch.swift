import AsyncHTTPClient
import DisposableClient
import Foundation

/// `disposable sync DIR --watch`: a computer's automatic backup. A phone's camera folder synced to it by
/// Syncthing, or a desktop's photos folder, goes up a few seconds after each new file appears, and what changes in
/// the library comes down. It keeps running: a server that goes away (a restart, a laptop off the network) is tried
/// again with a growing pause and nothing is lost — each pass is an ordinary sync, safe to interrupt. What changes in
/// the library elsewhere arrives on its change stream, and is brought down at the next look.
struct SyncWatch {
    var sync: FolderSync
    /// The client the library's change stream is read through.
    let listener: DisposableClient
    var state: SyncState
    /// How often the folder is looked at.
    let every: Duration
    /// How often the library is asked for changes made elsewhere when its stream said nothing (a proxy that holds
    /// streams back, a stream refused): a fallback, not the way news arrives.
    let remoteEvery: Duration
    /// Raised by the library's change stream; a pass runs at the next look.
    private let news = Flag()

    /// What the folder holds, by path: size and modification time, without reading any file.
    typealias Listing = [String: FileStamp]
    struct FileStamp: Equatable {
        let size: Int64
        let modified: Double
    }

    mutating func run() async throws -> Never {
        log("watching \(sync.root.path), every \(Self.seconds(every)); Ctrl-C stops")
        var seen: Listing? = nil
        var synced: Listing? = nil
        var lastRemote: ContinuousClock.Instant? = nil
        var pause = every
        var saidGone = false
        let listening = Task { [client = listener, revision = state.revision, news, trace = sync.trace] in
            for try await change in client.libraryChangeStream(after: revision) {
                trace?("news from the library: \(change.kind.rawValue) (revision \(change.revision))")
                news.raise()
            }
        }
        defer { listening.cancel() }
        while true {
            // A folder gone or emptied (a drive unmounted, a share down) is not a folder whose photos were deleted:
            // nothing is sent to the library's trash for it.
            guard let listing = Self.listing(of: sync.root), !listing.isEmpty || state.files.isEmpty else {
                if !saidGone { log("\(sync.root.path) is not there or is empty: waiting for it (nothing is removed from your library).") }
                saidGone = true
                try await Task.sleep(for: every)
                continue
            }
            if saidGone { log("\(sync.root.path) is back") }
            saidGone = false
            // A file still being written (its size or time moved since the last look) waits for the next look:
            // what goes up is the finished file. Syncthing writes under a hidden name and renames: never half seen.
            let settled = listing == seen
            if !settled, let seen, let trace = sync.trace {
                let moving = listing.filter { seen[$0.key] != $0.value }.map { ($0.key as NSString).lastPathComponent }.sorted()
                if !moving.isEmpty { trace("waiting for \(moving.joined(separator: ", ")) to settle") }
            }
            seen = listing
            let changedHere = settled && listing != synced
            let remoteNews = news.take()
            if changedHere || remoteNews || lastRemote.map({ ContinuousClock.now - $0 >= remoteEvery }) ?? true {
                do {
                    // The first pass is a whole sync, as without --watch.
                    try await pass(changedHere: changedHere || lastRemote == nil)
                    synced = listing
                    lastRemote = .now
                    if pause > every { log("the server answers again") }
                    pause = every
                } catch let error where Self.isPassing(error) {
                    log("\(CLIError.from(error, server: state.server).description) Trying again in \(Self.seconds(pause)).")
                    if remoteNews { news.raise() }
                    try await Task.sleep(for: pause)
                    pause = min(pause * 2, .seconds(60))
                    continue
                }
            }
            try await Task.sleep(for: every)
        }
    }

    /// One sync, unless nothing changed on either side (a pass costs a folder's hashes of new files and a round trip).
    private mutating func pass(changedHere: Bool) async throws {
        sync.trace?(changedHere ? "a pass: the folder changed" : "a pass: asking the library whether anything changed there")
        if !changedHere, try await sync.client.libraryChanges(since: state.revision).changes.isEmpty {
            sync.trace?("nothing changed in the library")
            return
        }
        sync.actions.removeAll()
        try await sync.run(&state)
        sync.trace?("pass done, \(sync.actions.count) changes; the folder's state saved")
    }

    /// A server away or failing, or the network: worth waiting for. A refusal (a revoked login, a full quota is per
    /// file) and a local failure end the command.
    static func isPassing(_ error: any Error) -> Bool {
        // An exchange broken off or silent too long (a download's body, read past the generated client).
        if error is HTTPClientError { return true }
        return switch CLIError.from(error, server: nil) {
        case .unreachable: true
        case .refused(let problem): problem.status >= 500 || problem.status == 429 || problem.status == 408
        case .notLoggedIn, .failed: false
        }
    }

    /// Nil when the folder is not there.
    static func listing(of root: URL) -> Listing? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else { return nil }
        var found: Listing = [:]
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        while let item = walker?.nextObject() as? URL {
            guard let values = try? item.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            found[item.path] = FileStamp(
                size: Int64(values.fileSize ?? 0), modified: values.contentModificationDate?.timeIntervalSince1970 ?? 0)
        }
        return found
    }

    /// Set from the stream's task, taken by the loop.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        func raise() { lock.withLock { raised = true } }
        func take() -> Bool {
            lock.withLock {
                defer { raised = false }; return raised
            }
        }
    }

    static func seconds(_ duration: Duration) -> String { "\(duration.components.seconds) s" }

    func log(_ line: String) { Self.logLine(line) }

    /// One line of the log, stamped with the time and written at once (not held in a buffer: the log is read while
    /// it runs, from a file or a journal).
    static func logLine(_ line: String) {
        FileHandle.standardOutput.write(Data("\(Date.now.formatted(Date.ISO8601FormatStyle())) \(line)\n".utf8))
    }
}
