import ArgumentParser
import DisposableClient
import Foundation

/// `disposable sync DIR` (LIB-4, P-I-120/170/270): keeps a folder and my library in step, both ways. Changes on the
/// server come down (new assets, edits; assets trashed there leave the folder), then changes here go up (new files,
/// edits; a file removed here goes to the server's trash). Safe to interrupt and run again: uploads carry the file's
/// SHA-256 as their key, downloads land whole or not at all, and the state file is rewritten after each step.
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Keep a folder and your personal library in step, both ways.")

    @Argument(help: "The folder to keep in step.")
    var folder: String

    @Flag(help: "Say what would be done, and do nothing.")
    var dryRun = false

    @Flag(help: "Delete nothing on either side: files removed here stay in the library, assets trashed there stay here.")
    var noDelete = false

    @Flag(help: "Keep running: send new files a few seconds after they appear, fetch the library's changes, and wait out a server that goes away.")
    var watch = false

    @Option(help: "With --watch: how often to look at the folder, in seconds.")
    var every = 3

    @Flag(help: "With --watch: also say what each pass waits for (the library's answer, a file settling, a download).")
    var verbose = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if verbose, !watch { throw ValidationError("--verbose goes with --watch (a plain sync lists every file it changes already).") }
        guard watch else { return }
        guard !dryRun, !output.json else { throw ValidationError("--watch runs for good: it takes neither --dry-run nor --json.") }
        guard (1...3600).contains(every) else { throw ValidationError("--every is between 1 and 3600 seconds.") }
    }

    func run() async throws {
        try await withClient { client, credentials in
            let root = URL(fileURLWithPath: folder).standardizedFileURL
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw CLIError.failed("\(folder): no such folder.")
            }
            var state = try SyncState.load(in: root, server: credentials.server, email: credentials.email)
            var sync = FolderSync(client: client, root: root, dryRun: dryRun, noDelete: noDelete, verbose: !output.json)
            if watch {
                sync.timestamped = true
                if verbose { sync.trace = SyncWatch.logLine }
                // Each pass talks through a client that gives up on an answer silent for a minute (tried again at the
                // next look); the change stream, silent for long by design, keeps its own.
                let listener = sync.client
                sync.client = DisposableClient(serverURL: client.serverURL, token: client.token, httpClient: watchHTTPClient)
                var watcher = SyncWatch(sync: sync, listener: listener, state: state, every: .seconds(every), remoteEvery: .seconds(300))
                try await watcher.run()
            }
            try await sync.run(&state)
            if output.json {
                try printJSON(sync.actions)
            } else {
                let count = { (kind: FolderSync.Action.Kind) in sync.actions.count(where: { $0.kind == kind }) }
                print(
                    "\(dryRun ? "Would have: " : "")\(count(.uploaded)) uploaded, \(count(.downloaded)) downloaded, "
                        + "\(count(.updatedThere) + count(.updatedHere)) updated, \(count(.trashedThere)) moved to the library's trash, "
                        + "\(count(.deletedHere)) removed here, \(count(.kept)) kept beside a conflicting edit, \(count(.skipped)) skipped.")
            }
            if sync.actions.contains(where: { $0.kind == .skipped }) { throw ExitCode(1) }
        }
    }
}

/// One run of `disposable sync`: the rules, apart from the command line.
struct FolderSync {
    struct Action: Encodable {
        enum Kind: String, Encodable {
            case uploaded, downloaded, updatedThere = "updated-there", updatedHere = "updated-here", trashedThere = "trashed-there"
            case deletedHere = "deleted-here", kept, skipped
        }
        let kind: Kind
        let path: String
        var assetId: String? = nil
        var reason: String? = nil
    }

    /// A file of the folder as found now.
    struct LocalFile {
        let url: URL
        let size: Int64
        let modified: Double
        let sha256: String
        /// An Apple Live Photo's video beside it (`IMG_1000.MOV` beside `IMG_1000.HEIC`): sent as its motion.
        var motion: URL? = nil
    }

    var client: DisposableClient
    let root: URL
    let dryRun: Bool
    let noDelete: Bool
    let verbose: Bool
    /// Each line starts with the time (`--watch` is a log).
    var timestamped = false
    /// With `--watch --verbose`: told what each step waits for.
    var trace: (@Sendable (String) -> Void)? = nil
    var actions: [Action] = []
    /// Files the library refused, with the content it refused: not sent again until they change.
    var refused: [String: String] = [:]
    var lastSaved = ContinuousClock.now

    mutating func run(_ state: inout SyncState) async throws {
        removePartialDownloads()
        trace?("reading the folder")
        var files = try scan(state)
        trace?("asking the library for its changes since \(state.revision)")
        let pulled = try await client.libraryChanges(since: state.revision)
        trace?("\(pulled.changes.count) changes; now sending what is new here")
        try await applyRemote(pulled.changes, &state, &files)
        try await pushLocal(&state, files)
        // Our own uploads and deletions come back in the feed next time, as no-ops.
        if !dryRun {
            state.revision = pulled.next
            try state.save(in: root, durably: true)
        }
    }

    mutating func record(_ action: Action) {
        actions.append(action)
        guard verbose else { return }
        let sign: String =
            switch action.kind {
            case .uploaded, .updatedThere: "↑"
            case .downloaded, .updatedHere: "↓"
            case .trashedThere, .deletedHere: "✕"
            case .kept: "≠"
            case .skipped: "!"
            }
        let text = "\(sign) \(action.kind.rawValue) \(action.path)\(action.reason.map { ": \($0)" } ?? "")"
        if timestamped { SyncWatch.logLine(text) } else { print(text) }
    }

    // MARK: The folder

    /// Leftovers of downloads a killed run did not finish.
    func removePartialDownloads() {
        guard !dryRun, let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return }
        while let item = walker.nextObject() as? URL {
            if item.lastPathComponent.hasPrefix("."), item.lastPathComponent.hasSuffix(".part") { try? FileManager.default.removeItem(at: item) }
        }
    }

    /// The photo files, by path relative to the folder; a file whose size and time match the state is not read again.
    func scan(_ state: SyncState) throws -> [String: LocalFile] {
        var found: [String: LocalFile] = [:]
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        while let item = walker?.nextObject() as? URL {
            let ext = item.pathExtension.lowercased()
            guard Upload.photoExtensions.contains(ext) || ImportPlan.keptVideoExtensions.contains(ext),
                let values = try? item.resourceValues(forKeys: Set(keys)), values.isRegularFile == true
            else { continue }
            let path = relativePath(item)
            let size = Int64(values.fileSize ?? 0)
            let modified = values.contentModificationDate?.timeIntervalSince1970 ?? 0
            let known = state.files[path].flatMap { $0.size == size && $0.modified == modified ? $0.sha256 : nil }
            found[path] = LocalFile(url: item, size: size, modified: modified, sha256: try known ?? DisposableClient.sha256(of: item))
        }
        return Self.pairLivePhotos(found)
    }

    /// A video with a photo's name in the same folder is that photo's motion (a live photo), not a video of its own.
    static func pairLivePhotos(_ files: [String: LocalFile]) -> [String: LocalFile] {
        let isVideo = { (path: String) in ImportPlan.keptVideoExtensions.contains((path as NSString).pathExtension.lowercased()) }
        let stills = Dictionary(files.keys.filter { !isVideo($0) }.map { (ImportPlan.stem($0), $0) }) { first, _ in first }
        var paired = files
        for path in files.keys where isVideo(path) {
            guard let still = stills[ImportPlan.stem(path)] else { continue }
            paired[still]?.motion = files[path]?.url
            paired[path] = nil
        }
        return paired
    }

    func relativePath(_ url: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(root.path.count).drop { $0 == "/" })
    }

    func entry(for asset: DisposableClient.LibraryAsset, at path: String) throws -> SyncState.Entry {
        let values = try root.appendingPathComponent(path).resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
        return SyncState.Entry(
            assetId: asset.id, sha256: asset.sha256, size: Int64(values.fileSize ?? 0),
            modified: values.contentModificationDate?.timeIntervalSince1970 ?? 0)
    }

    /// `name`, or `name (2)`, `name (3)`… before the extension: a path no file here takes.
    func freePath(_ wanted: String, _ files: [String: LocalFile], _ state: SyncState) -> String {
        let name = wanted.replacingOccurrences(of: "/", with: "_")
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        var candidate = name
        var number = 2
        while files[candidate] != nil || state.files[candidate] != nil
            || FileManager.default.fileExists(atPath: root.appendingPathComponent(candidate).path)
        {
            candidate = "\(base) (\(number))" + (ext.isEmpty ? "" : ".\(ext)")
            number += 1
        }
        return candidate
    }

    // MARK: From the server

    mutating func applyRemote(_ changes: [DisposableClient.LibraryChange], _ state: inout SyncState, _ files: inout [String: LocalFile])
        async throws
    {
        for change in changes {
            let path = state.path(of: change.assetId)
            switch change.kind {
            case .trashed, .deleted:
                guard let path, let known = state.files[path] else { continue }
                if let local = files[path], local.sha256 != known.sha256 {
                    // Edited here since: kept, and sent as a photo of its own below.
                    state.files[path] = nil
                    record(Action(kind: .kept, path: path, assetId: change.assetId, reason: "edited here, removed from the library"))
                    continue
                }
                guard !noDelete, files[path] != nil else {
                    if files[path] == nil, !dryRun { state.files[path] = nil }
                    continue
                }
                record(Action(kind: .deletedHere, path: path, assetId: change.assetId))
                guard !dryRun else { continue }
                // The state forgets it first: a run killed in between finds a file it does not know, never a "deleted
                // here" that would send the asset's deletion back.
                state.files[path] = nil
                try state.save(in: root)
                try? FileManager.default.removeItem(at: root.appendingPathComponent(path))
                files[path] = nil
            case .added, .updated, .restored:
                guard let asset = change.asset, asset.trashedAt == nil else { continue }
                if let path, let known = state.files[path] {
                    guard known.sha256 != asset.sha256 else { continue }
                    // Edited in the library. Edited here too: the local version is kept beside it, under a new name.
                    if let local = files[path], local.sha256 != known.sha256 {
                        let kept = freePath(conflictName(path), files, state)
                        record(Action(kind: .kept, path: kept, reason: "edited on both sides; the library's version is at \(path)"))
                        if !dryRun {
                            try FileManager.default.moveItem(at: root.appendingPathComponent(path), to: root.appendingPathComponent(kept))
                            files[kept] = LocalFile(
                                url: root.appendingPathComponent(kept), size: local.size, modified: local.modified, sha256: local.sha256)
                        }
                    }
                    try await download(asset, to: path, kind: .updatedHere, &state, &files)
                } else if let same = files.first(where: { $0.value.sha256 == asset.sha256 && state.files[$0.key] == nil }) {
                    // Already here (a first sync of a folder that holds the same photos): nothing to send either way.
                    if !dryRun { state.files[same.key] = try entry(for: asset, at: same.key) }
                } else {
                    try await download(asset, to: freePath(asset.fileName, files, state), kind: .downloaded, &state, &files)
                }
            }
        }
    }

    func conflictName(_ path: String) -> String {
        let base = (path as NSString).deletingPathExtension
        let ext = (path as NSString).pathExtension
        return "\(base) (edited here)" + (ext.isEmpty ? "" : ".\(ext)")
    }

    mutating func download(
        _ asset: DisposableClient.LibraryAsset, to path: String, kind: Action.Kind, _ state: inout SyncState, _ files: inout [String: LocalFile]
    ) async throws {
        record(Action(kind: kind, path: path, assetId: asset.id))
        guard !dryRun else { return }
        let target = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        trace?("downloading \(path)")
        try await client.downloadOriginal(ofAsset: asset.id, to: target)
        let entry = try entry(for: asset, at: path)
        state.files[path] = entry
        files[path] = LocalFile(url: target, size: entry.size, modified: entry.modified, sha256: asset.sha256)
        // Every few seconds is enough: a file that landed but is not in the state is matched by content next time.
        if ContinuousClock.now - lastSaved > .seconds(2) {
            try state.save(in: root)
            lastSaved = .now
        }
    }
}
