import ArgumentParser
import DisposableClient
import Foundation

/// `disposable import PATH` (LIB-5, P-I-211): a Google Takeout archive (its ZIP, or the folder it unpacks to) or an
/// Apple Photos export folder into my library. Each photo goes up once (its SHA-256 is its key, so a second run finds
/// everything there), with its capture time from the file's EXIF, else its sidecar (Takeout's JSON, an XMP), else the
/// file's own date. Where Takeout holds an edited version beside the original, the edited one is imported; an Apple
/// Live Photo's video (`IMG_1000.MOV` beside `IMG_1000.HEIC`) goes with its still; other videos are imported as videos.
/// With `--instagram`, Instagram's export instead: its posts, stories and reels, dated and with their captions.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a Google Takeout archive (ZIP or folder), an Apple Photos export folder or an Instagram export into your library.")

    @Argument(help: "The Takeout ZIP, or a folder.")
    var path: String

    @Flag(
        help: """
            PATH is Instagram's "Download your information" export in JSON format (its ZIP, or the folder it unpacks to): \
            posts, stories and reels go in with their dates and captions.
            """)
    var instagram = false

    @Flag(help: "Only list what would be imported, with its date and caption: nothing is sent, no sign-in needed.")
    var dryRun = false

    @OptionGroup var output: OutputOptions

    struct Outcome: Encodable {
        enum Status: String, Encodable { case imported, alreadyThere = "already-there", skipped, wouldImport = "would-import" }
        var file: String
        var status: Status
        var assetId: String? = nil
        var takenAt: Date? = nil
        var caption: String? = nil
        var reason: String? = nil
    }

    func run() async throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CLIError.failed("\(path): no such file or folder.")
        }
        let url = URL(fileURLWithPath: path)
        let source: any ImportSource = isFolder.boolValue ? FolderSource(url) : try ZipSource(url)
        let plan = instagram ? try ImportPlan(instagram: source) : ImportPlan(source)
        if dryRun { return try list(plan) }
        try await withClient { client, _ in
            var outcomes = plan.skipped
            // An entry larger than the server takes is not unpacked (a 700 MB "photo" would fill the disk for a 413).
            let largest = try await client.largestUpload() ?? .max
            for item in plan.photos {
                outcomes.append(try await send(item, from: source, with: client, largest: largest))
                if !output.json, let last = outcomes.last, last.status == .skipped { print("skipped \(last.file): \(last.reason ?? "")") }
            }
            if output.json {
                try printJSON(outcomes)
            } else {
                for outcome in plan.skipped { print("skipped \(outcome.file): \(outcome.reason ?? "")") }
                let count = { (status: Outcome.Status) in outcomes.count(where: { $0.status == status }) }
                print("\(count(.imported)) imported, \(count(.alreadyThere)) already there, \(count(.skipped)) skipped.")
            }
        }
    }

    /// What the plan would send, and what it skips: nothing leaves this machine.
    private func list(_ plan: ImportPlan) throws {
        let outcomes =
            plan.photos.map { Outcome(file: $0.path, status: .wouldImport, takenAt: $0.takenAt, caption: $0.caption) } + plan.skipped
        if output.json { return try printJSON(outcomes) }
        for outcome in outcomes {
            print("\(outcome.status == .skipped ? "skipped" : "would import") \(outcome.file)\(outcome.reason.map { ": " + $0 } ?? "")")
        }
        print("\(plan.photos.count) to import, \(plan.skipped.count) skipped.")
    }

    private func send(_ item: ImportPlan.Photo, from source: any ImportSource, with client: DisposableClient, largest: Int64) async throws
        -> Outcome
    {
        do {
            return try await upload(item, from: source, with: client, largest: largest)
        } catch let inflated as Inflated {
            return Outcome(file: inflated.path, status: .skipped, reason: inflated.description)
        }
    }

    private func upload(_ item: ImportPlan.Photo, from source: any ImportSource, with client: DisposableClient, largest: Int64) async throws
        -> Outcome
    {
        try await source.withFile(item.path, limit: largest) { file in
            let takenAt = item.takenAt ?? source.modified(item.path)
            do {
                let (asset, already) = try await client.uploadToLibrary(
                    file, fileName: (item.path as NSString).lastPathComponent, takenAt: takenAt, caption: item.caption,
                    idempotencyKey: try DisposableClient.sha256(of: file))
                try await attachMotion(item, to: asset, from: source, with: client, largest: largest)
                return Outcome(file: item.path, status: already ? .alreadyThere : .imported, assetId: asset.id, takenAt: asset.takenAt)
            } catch let problem as DisposableProblem where problem.status == 409 && problem.extensions["existingId"] != nil {
                try await attachMotion(
                    item, to: try await client.libraryAsset(problem.extensions["existingId"]!), from: source, with: client, largest: largest)
                return Outcome(file: item.path, status: .alreadyThere, assetId: problem.extensions["existingId"])
            } catch let problem as DisposableProblem where [400, 413, 415, 422].contains(problem.status) {
                return Outcome(file: item.path, status: .skipped, reason: problem.detail)
            }
        }
    }
}

extension Import {
    /// The live photo's video, unless the asset has its motion already (a second run).
    func attachMotion(
        _ item: ImportPlan.Photo, to asset: DisposableClient.LibraryAsset, from source: any ImportSource, with client: DisposableClient,
        largest: Int64
    ) async throws {
        guard let motion = item.motion, asset.urls.video == nil else { return }
        try await source.withFile(motion, limit: largest) { file in _ = try await client.attachVideo(to: asset.id, file: file) }
    }
}

/// What an export holds: the photos to send (with the capture time their sidecars give), and what is left out, with why.
struct ImportPlan {
    struct Photo {
        let path: String
        let takenAt: Date?
        /// An Apple Live Photo's video: the export's file of the same name beside it (`IMG_1000.MOV`).
        var motion: String? = nil
        /// An Instagram post's caption.
        var caption: String? = nil
    }

    private(set) var photos: [Photo] = []
    private(set) var skipped: [Import.Outcome] = []

    static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "3gp", "avi", "mkv", "webm"]
    /// The containers the library keeps (the server checks each file's bytes all the same).
    static let keptVideoExtensions: Set<String> = ["mp4", "mov", "m4v", "3gp", "mkv", "webm"]
    /// Google Photos names an edited copy after its original, with this suffix in the account's language.
    static let editedSuffixes = ["-edited", "-modifié", "-bearbeitet", "-editado", "-modificato", "-bewerkt", "-redigerad"]

    init(_ source: any ImportSource) {
        let all = Set(source.paths)
        let byFolder = Dictionary(grouping: source.paths) { ($0 as NSString).deletingLastPathComponent }
        let stills = Set(source.paths.filter { Upload.photoExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.map(Self.stem))
        for path in source.paths {
            let ext = (path as NSString).pathExtension.lowercased()
            if Self.videoExtensions.contains(ext), stills.contains(Self.stem(path)) { continue }  // a live photo's motion: sent with its still
            if Self.videoExtensions.contains(ext), !Self.keptVideoExtensions.contains(ext) {
                skipped.append(.init(file: path, status: .skipped, reason: "the library keeps MP4, QuickTime and WebM videos, not .\(ext)"))
                continue
            }
            guard Upload.photoExtensions.contains(ext) || Self.keptVideoExtensions.contains(ext) else { continue }  // sidecars, albums, HTML
            if let edited = Self.editedVersion(of: path, in: all) {
                skipped.append(.init(file: path, status: .skipped, reason: "its edited version, \(edited), is imported instead"))
                continue
            }
            let siblings = byFolder[(path as NSString).deletingLastPathComponent] ?? []
            let motion =
                Self.keptVideoExtensions.contains(ext)
                ? nil
                : siblings.first {
                    Self.videoExtensions.contains(($0 as NSString).pathExtension.lowercased()) && Self.stem($0) == Self.stem(path)
                }
            photos.append(
                Photo(path: path, takenAt: Self.sidecarTime(of: Self.original(of: path), siblings: siblings, source: source), motion: motion))
        }
    }

    /// What an Instagram export's lists name: every photo and kept video, with its post's date and caption.
    init(instagram source: any ImportSource) throws {
        let (found, missing) = InstagramExport.media(in: source)
        guard !found.isEmpty || !missing.isEmpty else {
            throw CLIError.failed(
                "No posts_1.json, stories.json or reels.json in this export: ask Instagram for your information in JSON format, not HTML.")
        }
        for media in found {
            let ext = (media.path as NSString).pathExtension.lowercased()
            guard Upload.photoExtensions.contains(ext) || Self.keptVideoExtensions.contains(ext) else {
                skipped.append(.init(file: media.path, status: .skipped, reason: "the library keeps photos and MP4, QuickTime and WebM videos"))
                continue
            }
            photos.append(Photo(path: media.path, takenAt: media.takenAt, caption: media.caption))
        }
        skipped += missing.map { .init(file: $0, status: .skipped, reason: "named in the export's lists, but not in the export") }
    }

    /// The path without its extension, case aside: a live photo's still and video share it.
    static func stem(_ path: String) -> String { (path as NSString).deletingPathExtension.lowercased() }

    /// `IMG_1-edited.jpg` beside `IMG_1.jpg`.
    static func editedVersion(of path: String, in all: Set<String>) -> String? {
        let base = (path as NSString).deletingPathExtension
        let ext = (path as NSString).pathExtension
        return editedSuffixes.lazy.map { "\(base)\($0).\(ext)" }.first { all.contains($0) }
    }

    /// The original's name of an edited copy (its sidecar is the original's).
    static func original(of path: String) -> String {
        let base = (path as NSString).deletingPathExtension
        let ext = (path as NSString).pathExtension
        for suffix in editedSuffixes where base.hasSuffix(suffix) { return "\(base.dropLast(suffix.count)).\(ext)" }
        return path
    }

    /// Takeout's JSON (`photoTakenTime`) or an XMP's capture date, if a sidecar of the photo says.
    static func sidecarTime(of path: String, siblings: [String], source: any ImportSource) -> Date? {
        let base = (path as NSString).deletingPathExtension
        // Takeout: NAME.json, NAME.supplemental-metadata.json, or that cut short (names are limited to 51 characters).
        let long = path + ".supplemental-metadata"
        let json = siblings.filter { $0.lowercased().hasSuffix(".json") }.filter { sidecar in
            let stem = String(sidecar.dropLast(5))
            return stem == path || (stem.count > path.count && long.hasPrefix(stem))
        }
        for sidecar in json {
            if let data = source.contents(sidecar), let time = takeoutTime(data) { return time }
        }
        for sidecar in siblings where sidecar.lowercased() == (base + ".xmp").lowercased() || sidecar.lowercased() == (path + ".xmp").lowercased() {
            if let data = source.contents(sidecar), let time = xmpTime(String(decoding: data, as: UTF8.self)) { return time }
        }
        return nil
    }

    static func takeoutTime(_ data: Data) -> Date? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let taken = object["photoTakenTime"] as? [String: Any],
            let seconds = (taken["timestamp"] as? String).flatMap(Double.init) ?? (taken["timestamp"] as? Double), seconds > 0
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// `exif:DateTimeOriginal`, `photoshop:DateCreated` or `xmp:CreateDate`, as an attribute or an element; a time
    /// without a zone is read as UTC, like EXIF's.
    static func xmpTime(_ text: String) -> Date? {
        for name in ["exif:DateTimeOriginal", "photoshop:DateCreated", "xmp:CreateDate"] {
            for pattern in ["\(name)\\s*=\\s*\"([^\"]+)\"", "<\(name)>([^<]+)</\(name)>"] {
                guard let match = text.range(of: pattern, options: .regularExpression) else { continue }
                let found = String(text[match])
                guard let value = found.split(whereSeparator: { $0 == "\"" || $0 == ">" || $0 == "<" }).dropFirst().first else { continue }
                let raw = String(value)
                if let date = try? Date.ISO8601FormatStyle().parse(raw) { return date }
                if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(raw) { return date }
                if let date = try? Date.ISO8601FormatStyle().parse(String(raw.prefix(19)) + "Z") { return date }
            }
        }
        return nil
    }
}
