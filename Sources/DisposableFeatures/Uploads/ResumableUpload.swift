import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// One tus upload (UP-4) as stored: who sends what where, its length, and how much of it is durable.
package struct ResumableUpload: Sendable {
    package let id: String
    /// Which `UploadTarget` it goes to (`event`, `library`).
    package let target: String
    /// Where in it: the event's id; empty for one's library.
    package let placeID: String
    /// The account or guest sending it (`PhotoRepository.Uploader.id`).
    package let uploaderID: String
    /// Set when a guest's shot is held for it.
    package let guestID: String?
    package let length: Int64
    /// Bytes fsynced so far: the offset a client resumes from.
    package let received: Int64
    package let idempotencyKey: String?
    package let source: PhotoSource
    /// `Upload-Metadata` as it was sent, given back by HEAD.
    package let metadata: String
    package let createdAt: Date
    package let expiresAt: Date
    /// The bytes it may have on the server's disk: an allowance until its first bytes, then what it received, or a PATCH's grant.
    package let held: Int64
    /// The sender's network, for its cap.
    package let network: String
    /// A PATCH began (its bytes may still be arriving, none recorded yet).
    package let patched: Bool
    /// The photo (or library asset) it became, once complete.
    package let photoID: String?

    package var isComplete: Bool { received == length }

    /// Announced, then no byte began to arrive within `ResumableUploadService.idleLimit`: given up.
    package func isAbandoned(at now: Date) -> Bool {
        photoID == nil && received == 0 && !patched && createdAt.addingTimeInterval(ResumableUploadService.idleLimit) <= now
    }

    package init(row: any SQLRow) throws {
        id = try row.decode(column: "id", as: String.self)
        target = try row.decode(column: "target", as: String.self)
        placeID = try row.decode(column: "event_id", as: String.self)
        uploaderID = try row.decode(column: "uploader_id", as: String.self)
        guestID = try row.decode(column: "guest_id", as: String?.self)
        length = try row.decode(column: "length", as: Int64.self)
        received = try row.decode(column: "received", as: Int64.self)
        idempotencyKey = try row.decode(column: "idempotency_key", as: String?.self)
        source = PhotoSource(rawValue: try row.decode(column: "source", as: String.self)) ?? .library
        metadata = try row.decode(column: "metadata", as: String.self)
        createdAt = Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self))
        expiresAt = Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self))
        held = try row.decode(column: "held", as: Int64.self)
        network = try row.decode(column: "network", as: String.self)
        patched = try row.decode(column: "patched_at", as: Int64?.self) != nil
        photoID = try row.decode(column: "photo_id", as: String?.self)
    }
}

/// `Upload-Metadata`: comma-separated `key base64value` pairs (tus 1.0, creation extension).
package struct UploadMetadata {
    package let values: [String: String]

    package init(header: String?) throws {
        var values: [String: String] = [:]
        for pair in (header ?? "").split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first, !key.isEmpty, values[String(key)] == nil else {
                throw Problem.badRequest("Upload-Metadata must be pairs of a key and a base64 value, each key once.", field: "Upload-Metadata")
            }
            let encoded = parts.count == 2 ? String(parts[1]) : ""
            guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) else {
                throw Problem.badRequest("The value of “\(key)” in Upload-Metadata is not base64 text.", field: "Upload-Metadata")
            }
            values[String(key)] = text
        }
        self.values = values
    }
}
