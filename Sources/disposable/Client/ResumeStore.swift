import Foundation
import NIOConcurrencyHelpers

/// The resumable uploads under way, by file, in `~/.config/disposable/uploads.json`: a run killed halfway through a
/// large file goes on from the server's bytes when run again.
final class ResumeStore: Sendable {
    private let file: URL
    private let entries: NIOLockedValueBox<[String: String]>

    init() {
        file = Credentials.file.deletingLastPathComponent().appendingPathComponent("uploads.json")
        let saved = FileManager.default.contents(atPath: file.path).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }
        entries = NIOLockedValueBox(saved ?? [:])
    }

    static func key(server: String, event: String, sha256: String) -> String { "\(server) \(event) \(sha256)" }

    func upload(for key: String) -> String? { entries.withLockedValue { $0[key] } }

    func set(_ upload: String?, for key: String) {
        let snapshot = entries.withLockedValue { entries in
            entries[key] = upload
            return entries
        }
        // Small and rewritten whole; readable by the user alone, like the token beside it.
        guard let data = try? JSONEncoder().encode(snapshot) else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = file.deletingLastPathComponent().appendingPathComponent(".uploads.json.\(getpid())")
        if FileManager.default.createFile(atPath: partial.path, contents: data, attributes: [.posixPermissions: 0o600]) {
            rename(partial.path, file.path)
        }
    }
}
