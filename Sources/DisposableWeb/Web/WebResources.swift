import Crypto
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation
import Mustache

/// The web app's templates, string catalogues and static files, read once from the bundle at start.
package struct WebResources: Sendable {
    package struct StaticFile: Sendable {
        package let data: Data
        package let contentType: String
        package let etag: String
    }

    package let templates: MustacheLibrary
    /// Each language's strings, English filling any gap.
    package let catalogues: [WebLanguage: [String: String]]
    package let staticFiles: [String: StaticFile]
    /// A hash of every static file: asset URLs carry it, so browsers may cache them forever.
    package let assetVersion: String
    /// `app_js` → `/static/app.js?v=…`, for the templates.
    package let assetURLs: [String: String]
    /// Each language's `js_*` strings as JSON safe inside a `<script type="application/json">`.
    package let scriptStrings: [WebLanguage: String]

    package static let shared: WebResources = {
        do { return try load() } catch { fatalError("The web app's resources are missing from the bundle: \(error)") }
    }()

    package static func load() throws -> WebResources {
        guard let root = Bundle.module.resourceURL else { throw CocoaError(.fileNoSuchFile) }
        let files = FileManager.default
        var library = MustacheLibrary()
        let templateDirectory = root.appendingPathComponent("Templates")
        for name in try files.contentsOfDirectory(atPath: templateDirectory.path) where name.hasSuffix(".mustache") {
            let text = try String(contentsOf: templateDirectory.appendingPathComponent(name), encoding: .utf8)
            library.register(try MustacheTemplate(string: text), named: String(name.dropLast(".mustache".count)))
        }
        let catalogues = try Catalogues.load()
        var staticFiles: [String: StaticFile] = [:]
        var all = SHA256()
        let staticDirectory = root.appendingPathComponent("Static")
        for name in try files.contentsOfDirectory(atPath: staticDirectory.path).sorted() {
            let data = try Data(contentsOf: staticDirectory.appendingPathComponent(name))
            let digest = SHA256.hash(data: data)
            all.update(data: Data(digest))
            let etag = "\"" + digest.prefix(8).hex + "\""
            staticFiles[name] = StaticFile(data: data, contentType: contentType(name), etag: etag)
        }
        let version = all.finalize().prefix(5).hex
        // Modules import each other by the same versioned URL the pages use: `./app.js` and `app.js?v=…` are
        // two modules to a browser, so every listener ran twice.
        for (name, file) in staticFiles where name.hasSuffix(".js") {
            var text = String(decoding: file.data, as: UTF8.self)
            for other in staticFiles.keys where other.hasSuffix(".js") {
                text = text.replacingOccurrences(of: "from './\(other)'", with: "from './\(other)?v=\(version)'")
            }
            let data = Data(text.utf8)
            staticFiles[name] = StaticFile(data: data, contentType: file.contentType, etag: "\"" + SHA256.hash(data: data).prefix(8).hex + "\"")
        }
        let assetURLs = Dictionary(
            uniqueKeysWithValues: staticFiles.keys.map {
                ($0.replacingOccurrences(of: ".", with: "_"), "/static/\($0)?v=\(version)")
            })
        let scriptStrings = Dictionary(
            uniqueKeysWithValues: catalogues.map { language, strings -> (WebLanguage, String) in
                var entries: [String: String] = [:]
                for (key, value) in strings where key.hasPrefix("js_") { entries[String(key.dropFirst(3))] = value }
                entries["locale"] = language.scriptLocale
                let data = (try? JSONSerialization.data(withJSONObject: entries, options: [.sortedKeys])) ?? Data("{}".utf8)
                return (language, String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c"))
            })
        return WebResources(
            templates: library, catalogues: catalogues, staticFiles: staticFiles, assetVersion: version,
            assetURLs: assetURLs, scriptStrings: scriptStrings)
    }

    package static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }
}
