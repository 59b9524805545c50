import Foundation

/// A place in the library's WebDAV tree: a folder, a photo or video (a library asset, perhaps at several paths), or a
/// plain file a client keeps there (never shown in the timeline).
struct DAVEntry: Sendable, Equatable {
    enum Kind: String, Sendable {
        case folder, asset, file
    }

    /// Below the library: "" is the library itself.
    let path: String
    let kind: Kind
    let assetID: String?
    /// A plain file's bytes: `content` under it.
    let filePrefix: String?
    let byteSize: Int64
    /// Quoted, as `getetag` and ETag give it.
    let etag: String
    /// An asset's type; plain files are `application/octet-stream`.
    let contentType: String?
    let createdAt: Date
    let modifiedAt: Date
    var properties: [DAVDeadProperty]

    var isFolder: Bool { kind == .folder }

    /// The library itself: always there, never stored.
    static func libraryRoot(at now: Date) -> DAVEntry {
        DAVEntry(
            path: "", kind: .folder, assetID: nil, filePrefix: nil, byteSize: 0, etag: "\"library\"", contentType: nil, createdAt: now,
            modifiedAt: now, properties: [])
    }

    static func fileKey(_ prefix: String) -> String { prefix + "content" }
}

/// A property a client set with PROPPATCH, kept as it sent it.
struct DAVDeadProperty: Sendable, Equatable, Codable {
    let name: DAVName
    let value: String
}
