import ArgumentParser
import DisposableClient
import Foundation
import NIOConcurrencyHelpers

/// `disposable upload --event ID PATHS…`: photos from files and folders into an event, safe to interrupt and run
/// again. Each file is hashed first and the server asked which it already has (UP-7); the rest go up N at a time
/// with the file's SHA-256 as the Idempotency-Key, so a re-run — after a kill, a dropped link, a full card — never
/// sends a photo twice and never spends a second shot.
struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Upload photos (files, or folders of them) into an event.")

    /// Files larger than this go with tus (resumable); smaller ones in one request.
    static let resumableFrom: Int64 = 8 << 20

    /// What the server can take: the formats MED-1 reads.
    static let photoExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "png", "webp", "avif", "gif", "tif", "tiff"]

    @Option(help: "The event's id.") var event: String
    @Argument(help: "Photo files, or folders to look through (and their subfolders).") var paths: [String]
    @Option(help: "How many uploads at once.") var concurrency = 4
    @Option(help: "Large files go in checked pieces of this many KB; smaller ones lose less when the connection drops.")
    var pieceKB = 4096
    @OptionGroup var output: OutputOptions

    struct Outcome: Encodable {
        var file: String
        var sha256: String
        var status: String
        var photoId: String? = nil
        var error: String? = nil
    }

    func validate() throws {
        guard (1...16).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 16.") }
        guard (64...65536).contains(pieceKB) else { throw ValidationError("--piece-kb must be between 64 and 65536.") }
        guard !paths.isEmpty else { throw ValidationError("Name at least one file or folder.") }
    }

    func run() async throws {
        try await withClient { client, credentials in
            let resumes = ResumeStore()
            let files = try collect()
            guard !files.isEmpty else { throw CLIError.failed("No photos found in \(paths.joined(separator: ", ")).") }
            var hashes: [(file: URL, sha256: String, size: Int64)] = []
            for file in files {
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
                hashes.append((file, try DisposableClient.sha256(of: file), size ?? 0))
            }
            let missing = try await client.missingHashes(hashes.map(\.sha256), in: event)
            var outcomes = hashes.filter { !missing.contains($0.sha256) }.map {
                Outcome(file: $0.file.path, sha256: $0.sha256, status: "already-there")
            }
            let queue = hashes.filter { missing.contains($0.sha256) }
            let total = queue.reduce(0) { $0 + $1.size }
            let bar = ProgressBar(enabled: !output.json, label: "Uploading")
            let finished = NIOLockedValueBox(0)
            outcomes += try await withThrowingTaskGroup(of: Outcome.self) { group in
                var results: [Outcome] = []
                var next = queue.makeIterator()
                func start(_ item: (file: URL, sha256: String, size: Int64)) {
                    group.addTask {
                        let last = NIOLockedValueBox<Int64>(0)
                        do {
                            let report: DisposableClient.Progress = { sent, _ in
                                let previous = last.withLockedValue { value in
                                    defer { value = sent }
                                    return value
                                }
                                bar.advance(by: sent - previous, total: total)
                            }
                            let (photo, already): (Components.Schemas.Photo, Bool)
                            if item.size > Self.resumableFrom {
                                // Large files go with tus, remembered so that a killed run goes on where it stopped.
                                let key = ResumeStore.key(server: credentials.server, event: event, sha256: item.sha256)
                                (photo, already) = try await client.uploadPhotoResumable(
                                    item.file, to: event, idempotencyKey: item.sha256, resuming: resumes.upload(for: key),
                                    pieceSize: pieceKB * 1024, remember: { resumes.set($0, for: key) }, progress: report)
                                resumes.set(nil, for: key)
                            } else {
                                (photo, already) = try await client.uploadPhoto(
                                    item.file, to: event, idempotencyKey: item.sha256, progress: report)
                            }
                            let count = finished.withLockedValue {
                                $0 += 1; return $0
                            }
                            bar.advance(by: 0, total: total, note: "(\(count)/\(queue.count) photos)")
                            return Outcome(
                                file: item.file.path, sha256: item.sha256, status: already ? "already-there" : "uploaded", photoId: photo.id)
                        } catch let problem where DisposableProblem.from(problem).map({ [400, 413, 415, 422].contains($0.status) }) == true {
                            // This file is refused (not a photo, too large…); the others still go.
                            return Outcome(
                                file: item.file.path, sha256: item.sha256, status: "refused", error: DisposableProblem.from(problem)?.detail)
                        }
                    }
                }
                for _ in 0..<concurrency { if let item = next.next() { start(item) } }
                while let outcome = try await group.next() {
                    results.append(outcome)
                    if let item = next.next() { start(item) }
                }
                return results
            }
            bar.finish()
            report(outcomes)
            if outcomes.contains(where: { $0.status == "refused" }) { throw ExitCode(1) }
        }
    }

    private func report(_ outcomes: [Outcome]) {
        if output.json {
            try? printJSON(outcomes)
            return
        }
        for outcome in outcomes where outcome.status == "refused" {
            FileHandle.standardError.write(Data("refused: \(outcome.file): \(outcome.error ?? "")\n".utf8))
        }
        let count = { (status: String) in outcomes.count(where: { $0.status == status }) }
        print("\(count("uploaded")) uploaded, \(count("already-there")) already there, \(count("refused")) refused.")
    }

    /// The photo files named, and those inside the folders named, in a stable order.
    private func collect() throws -> [URL] {
        var files: [URL] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CLIError.failed("\(path): no such file or folder.")
            }
            let url = URL(fileURLWithPath: path)
            if !isFolder.boolValue {
                files.append(url)
                continue
            }
            let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            while let item = walker?.nextObject() as? URL {
                if Self.photoExtensions.contains(item.pathExtension.lowercased()),
                    (try? item.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
                {
                    files.append(item)
                }
            }
        }
        return files.sorted { $0.path < $1.path }
    }
}
