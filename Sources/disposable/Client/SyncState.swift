import Foundation

/// What `disposable sync` knows of a folder since its last run: `.disposable-sync.json` inside it. Each file it
/// synced names its asset and the content both sides had then; the library's feed position says where to read
/// changes from next time. Written to a new file and renamed over the old one, so a killed run leaves the last
/// whole state.
struct SyncState: Codable {
    struct Entry: Codable, Equatable {
        var assetId: String
        var sha256: String
        /// Size and modification time when hashed: a file that kept both is not read again.
        var size: Int64
        var modified: Double
    }

    static let fileName = ".disposable-sync.json"

    var server: String
    var email: String
    /// The library's feed position: changes after it are new to this folder.
    var revision: Int64 = 0
    /// By path relative to the folder.
    var files: [String: Entry] = [:]

    static func load(in folder: URL, server: String, email: String) throws -> SyncState {
        let file = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return SyncState(server: server, email: email) }
        guard let state = try? JSONDecoder().decode(SyncState.self, from: data) else {
            throw CLIError.failed(
                "\(file.path) is damaged. Move it away to sync this folder from the start (nothing is lost: files are matched by content).")
        }
        guard state.server == server, state.email == email else {
            throw CLIError.failed(
                "\(folder.path) is kept in step with \(state.email) on \(state.server), not with \(email) on \(server). Use another folder.")
        }
        return state
    }

    func save(in folder: URL, durably: Bool = false) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(self)
        let partial = folder.appendingPathComponent(".disposable-sync.json.\(getpid())")
        guard FileManager.default.createFile(atPath: partial.path, contents: data) else { throw CLIError.failed("Cannot write \(partial.path).") }
        if durably {
            let handle = try FileHandle(forWritingTo: partial)
            try handle.synchronize()
            try handle.close()
        }
        guard rename(partial.path, folder.appendingPathComponent(Self.fileName).path) == 0 else {
            throw CLIError.failed("Cannot write \(folder.appendingPathComponent(Self.fileName).path).")
        }
    }

    /// The path synced with an asset, if any.
    func path(of assetId: String) -> String? {
        files.first { $0.value.assetId == assetId }?.key
    }
}
