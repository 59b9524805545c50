import ArgumentParser
import Foundation
import Yams

/// OPS-1: every setting also from a file, `--config disposable.yaml` (YAML, or JSON, which YAML reads too).
/// Keys are the flags' names (`public-url: https://photos.example.org`). The file's values become the
/// environment variables the options read, unless the environment already sets them — so a flag beats the
/// environment, which beats the file, which beats the default. An unknown key stops the start with its name.
enum ConfigFile {
    /// Each key of the file and the variable it stands for.
    static let keys: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "data-dir", "database-url", "log-level", "log-format", "host", "port", "public-url", "retention-days", "max-upload-mb",
            "max-video-mb", "max-staged-gb", "max-library-video-minutes", "transcode-minutes-per-day", "database-pool-size",
            "registration", "media-workers", "media-fast-path", "trusted-proxies", "forwarded-header", "idle-timeout", "header-timeout",
            "body-timeout",
            "max-connections-per-client", "max-streams-per-session", "session-days", "storage-url", "s3-endpoint", "s3-public-endpoint", "s3-region",
            "s3-path-style", "metrics-token", "metrics-port", "smtp-url", "mail-from",
            "oidc-issuer", "oidc-client-id", "oidc-button-label", "oidc-only",
        ].map { ($0, "DISPOSABLE_" + $0.uppercased().replacingOccurrences(of: "-", with: "_")) })

    /// Reads the file `--config PATH` (or `DISPOSABLE_CONFIG`) names, if any, into the environment.
    static func apply(arguments: [String]) throws {
        var path = ProcessInfo.processInfo.environment["DISPOSABLE_CONFIG"]
        if let index = arguments.firstIndex(of: "--config"), index + 1 < arguments.count { path = arguments[index + 1] }
        if let inline = arguments.first(where: { $0.hasPrefix("--config=") }) { path = String(inline.dropFirst("--config=".count)) }
        guard let path, !path.isEmpty else { return }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("The configuration file \(path) cannot be read.")
        }
        // An empty variable counts as unset, as everywhere else (`env`).
        for (name, value) in try settings(in: text, path: path) where (ProcessInfo.processInfo.environment[name] ?? "").isEmpty {
            setenv(name, value, 1)
        }
    }

    /// The file's settings as variable names and values; an error names the first unknown key or odd value.
    static func settings(in text: String, path: String) throws -> [(String, String)] {
        let document: Any?
        do {
            document = try Yams.load(yaml: text)
        } catch {
            throw ValidationError("\(path) is not valid YAML or JSON: \(error)")
        }
        guard let document else { return [] }
        guard let table = document as? [String: Any] else {
            throw ValidationError("\(path) must hold settings as `key: value` lines, e.g. `port: 8080`.")
        }
        return try table.sorted { $0.key < $1.key }.map { key, value in
            guard let name = keys[key] else {
                throw ValidationError("\(path): unknown setting “\(key)”. Known settings: \(keys.keys.sorted().joined(separator: ", ")).")
            }
            switch value {
            case let text as String: return (name, text)
            case let flag as Bool: return (name, flag ? "true" : "false")
            case let number as Int: return (name, String(number))
            case let list as [Any] where key == "trusted-proxies": return (name, list.map { "\($0)" }.joined(separator: ","))
            default: throw ValidationError("\(path): “\(key)” must be a single value (text, number, true or false).")
            }
        }
    }
}
