import DisposableCore
import DisposablePlatform
import Foundation

/// A place in the library's WebDAV tree: a folder, a photo or video (a library asset, perhaps at several paths), or a
/// plain file a client keeps there (never shown in the timeline).
package struct DAVEntry: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case folder, asset, file
    }

    /// Below the library: "" is the library itself.
    package let path: String
    package let kind: Kind
    package let assetID: String?
    /// A plain file's bytes: `content` under it.
    package let filePrefix: String?
    package let byteSize: Int64
    /// Quoted, as `getetag` and ETag give it.
    package let etag: String
    /// An asset's type; plain files are `application/octet-stream`.
    package let contentType: String?
    package let createdAt: Date
    package let modifiedAt: Date
    package var properties: [DAVDeadProperty]

    package var isFolder: Bool { kind == .folder }

    package init(
        path: String, kind: Kind, assetID: String?, filePrefix: String?, byteSize: Int64, etag: String, contentType: String?, createdAt: Date,
        modifiedAt: Date, properties: [DAVDeadProperty]
    ) {
        self.path = path
        self.kind = kind
        self.assetID = assetID
        self.filePrefix = filePrefix
        self.byteSize = byteSize
        self.etag = etag
        self.contentType = contentType
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.properties = properties
    }

    /// The library itself: always there, never stored.
    package static func libraryRoot(at now: Date) -> DAVEntry {
        DAVEntry(
            path: "", kind: .folder, assetID: nil, filePrefix: nil, byteSize: 0, etag: "\"library\"", contentType: nil, createdAt: now,
            modifiedAt: now, properties: [])
    }

    package static func fileKey(_ prefix: String) -> String { prefix + "content" }
}

/// A property a client set with PROPPATCH, kept as it sent it.
package struct DAVDeadProperty: Sendable, Equatable, Codable {
    package let name: DAVName
    package let value: String
}
