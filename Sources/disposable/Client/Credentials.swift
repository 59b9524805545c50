import Foundation

/// Where `disposable login` keeps the server and token: `$XDG_CONFIG_HOME/disposable/credentials.json` (or
/// `~/.config/…`), readable by the user alone (0600) in a folder only they can enter (0700).
struct Credentials: Codable {
    var server: String
    var email: String
    var token: String

    static var file: URL {
        let base =
            env("XDG_CONFIG_HOME").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return base.appendingPathComponent("disposable/credentials.json")
    }

    static func load() throws -> Credentials {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw CLIError.notLoggedIn
        }
        do {
            return try JSONDecoder().decode(Credentials.self, from: data)
        } catch {
            throw CLIError.notLoggedIn
        }
    }

    /// Written to a new file with mode 0600 and renamed over the old one, so the token is never readable by others,
    /// not even for a moment.
    func save() throws {
        let folder = Self.file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let partial = folder.appendingPathComponent(".credentials.json.\(getpid())")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard FileManager.default.createFile(atPath: partial.path, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError.failed("Cannot write \(partial.path).")
        }
        guard rename(partial.path, Self.file.path) == 0 else { throw CLIError.failed("Cannot write \(Self.file.path).") }
    }

    static func remove() throws {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }
}
