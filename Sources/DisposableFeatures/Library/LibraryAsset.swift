import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// One asset of a user's own library (LIB-1): the original as sent, byte for byte, and its derivatives.
package struct LibraryAsset: Sendable, Equatable {
    package let id: String
    package let userID: String
    package let sha256: String
    package let format: MediaFormat
    package let byteSize: Int64
    package let derivativeBytes: Int64
    package let width: Int?
    package let height: Int?
    /// EXIF DateTimeOriginal (floating time, read as UTC), else `X-Taken-At`, else the upload time.
    package let takenAt: Date
    /// The wall clock where it was taken (read as UTC) and its offset east of UTC in seconds, when its EXIF said:
    /// the offset is nil for a floating time (no `OffsetTimeOriginal`), and both for a time from anywhere else.
    package var takenLocal: Date? = nil
    package var takenOffset: Int? = nil
    /// `takenAt` came from the client (`X-Taken-At`, an import's sidecar, the event photo it was saved from).
    package let takenAtGiven: Bool
    package let uploadedAt: Date
    package let fileName: String
    package let status: PhotoStatus
    /// 1, then one more with each edit: its files are in a folder of their own.
    package let fileRevision: Int
    /// The library counter's value at its last change (LIB-4).
    package let revision: Int64
    package let lastChange: LibraryChangeKind
    package let trashedAt: Date?
    package let deletedAt: Date?
    /// A live photo's motion (LIB-3), or a video's playable copy.
    package let motion: Motion?
    /// A video's length, once rendered.
    package let durationMilliseconds: Int64?
    /// The words it came with (an Instagram post's caption).
    package let caption: String?

    /// The bytes it counts against the quota: the original, and a live photo's video stored beside it.
    package var chargedBytes: Int64 { byteSize + (motion?.kind == .file ? motion!.size : 0) }

    package init(
        id: String, userID: String, sha256: String, format: MediaFormat, byteSize: Int64, derivativeBytes: Int64, width: Int?, height: Int?,
        takenAt: Date, takenLocal: Date? = nil, takenOffset: Int? = nil, takenAtGiven: Bool, uploadedAt: Date, fileName: String, status: PhotoStatus,
        fileRevision: Int, revision: Int64, lastChange: LibraryChangeKind, trashedAt: Date?, deletedAt: Date?, motion: Motion?,
        durationMilliseconds: Int64?, caption: String?
    ) {
        self.id = id
        self.userID = userID
        self.sha256 = sha256
        self.format = format
        self.byteSize = byteSize
        self.derivativeBytes = derivativeBytes
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.takenLocal = takenLocal
        self.takenOffset = takenOffset
        self.takenAtGiven = takenAtGiven
        self.uploadedAt = uploadedAt
        self.fileName = fileName
        self.status = status
        self.fileRevision = fileRevision
        self.revision = revision
        self.lastChange = lastChange
        self.trashedAt = trashedAt
        self.deletedAt = deletedAt
        self.motion = motion
        self.durationMilliseconds = durationMilliseconds
        self.caption = caption
    }

    package var files: LibraryFiles { .revision(user: userID, asset: id, fileRevision: fileRevision) }

    /// `2023-05`, the timeline's month: where it was taken when known.
    package var month: String {
        let days = Int64(((takenLocal ?? takenAt).timeIntervalSince1970 / 86_400).rounded(.down))
        let (year, month, _) = civilDate(daysSince1970: days)
        return String(format: "%04d-%02d", year, month)
    }

    package static func from(_ row: any SQLRow) throws -> LibraryAsset {
        let column = ColumnReader(row)
        return LibraryAsset(
            id: try column("id", as: String.self),
            userID: try column("user_id", as: String.self),
            sha256: try column("sha256", as: String.self),
            format: MediaFormat(rawValue: try column("format", as: String.self)) ?? .image(.jpeg),
            byteSize: try column("byte_size", as: Int64.self),
            derivativeBytes: try column("derivative_bytes", as: Int64.self),
            width: try column.optional("width", as: Int.self),
            height: try column.optional("height", as: Int.self),
            takenAt: Date(millisecondsSince1970: try column("taken_at", as: Int64.self)),
            takenLocal: try column.optional("taken_local", as: Int64.self).map(Date.init(millisecondsSince1970:)),
            takenOffset: try column.optional("taken_offset", as: Int.self),
            takenAtGiven: try column("taken_at_given", as: Bool.self),
            uploadedAt: Date(millisecondsSince1970: try column("uploaded_at", as: Int64.self)),
            fileName: try column("file_name", as: String.self),
            status: PhotoStatus(rawValue: try column("status", as: String.self)) ?? .processing,
            fileRevision: try column("file_revision", as: Int.self),
            revision: try column("revision", as: Int64.self),
            lastChange: LibraryChangeKind(rawValue: try column("last_change", as: String.self)) ?? .updated,
            trashedAt: try column.optional("trashed_at", as: Int64.self).map(Date.init(millisecondsSince1970:)),
            deletedAt: try column.optional("deleted_at", as: Int64.self).map(Date.init(millisecondsSince1970:)),
            motion: try column.optional("motion", as: String.self).flatMap(Motion.Kind.init(rawValue:)).map { kind in
                Motion(
                    kind: kind, offset: try column.optional("motion_offset", as: Int64.self) ?? 0,
                    size: try column.optional("motion_size", as: Int64.self) ?? 0,
                    contentType: try column.optional("motion_type", as: String.self) ?? "video/mp4")
            },
            durationMilliseconds: try column.optional("duration_ms", as: Int64.self),
            caption: try column.optional("caption", as: String.self))
    }

    package var json: LibraryAssetJSON {
        let base = "/api/v1/library/assets/\(id)"
        // The revision in the derivatives' links: an edit makes new links, so they may be cached for good.
        return LibraryAssetJSON(
            id: id, takenAt: takenAt, month: month, uploadedAt: uploadedAt, width: width, height: height, byteSize: byteSize,
            format: format.rawValue, mediaType: format.isVideo ? "video" : "photo",
            durationSeconds: durationMilliseconds.map { Double($0) / 1000 }, status: status, sha256: sha256, fileName: fileName,
            fileRevision: fileRevision, revision: revision,
            trashedAt: trashedAt, caption: caption,
            urls: .init(
                thumbnail: "\(base)/thumbnail?r=\(fileRevision)", preview: "\(base)/preview?r=\(fileRevision)", original: "\(base)/original",
                video: motion.map { _ in "\(base)/video?r=\(fileRevision)" }),
            takenAtLocal: takenLocal.map { String($0.rfc3339.prefix(19)) },
            takenAtOffset: takenOffset.map(Self.offsetText))
    }

    /// `+09:00`, `-03:30`.
    package static func offsetText(_ seconds: Int) -> String {
        String(format: "%@%02d:%02d", seconds < 0 ? "-" : "+", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
    }

    package var change: LibraryChange {
        LibraryChange(revision: revision, kind: lastChange, assetId: id, asset: lastChange == .deleted ? nil : json)
    }
}

/// Year, month and day of a day count since 1970-01-01 (proleptic Gregorian; Howard Hinnant's algorithm) — no
/// Calendar per asset on a page of 200.
package func civilDate(daysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
}

/// Where a library asset's files live: `library/<user>/<asset>/<file revision>/`. An edit writes a new folder,
/// so the files of the revision the row names are never overwritten in place.
package struct LibraryFiles: Sendable, Equatable {
    /// Names the write in `pending_writes`: `<asset>@<file revision>`, or `<asset>@all` for the whole asset.
    package let writeID: String
    package let prefix: String

    package init(writeID: String, prefix: String) {
        self.writeID = writeID
        self.prefix = prefix
    }

    package static func revision(user: String, asset: String, fileRevision: Int) -> LibraryFiles {
        LibraryFiles(writeID: "\(asset)@\(fileRevision)", prefix: "library/\(user)/\(asset)/\(fileRevision)/")
    }

    /// Every file of an asset (it is being deleted).
    package static func all(user: String, asset: String) -> LibraryFiles {
        LibraryFiles(writeID: "\(asset)@all", prefix: "library/\(user)/\(asset)/")
    }

    /// Every file of a user's library (the account is being deleted).
    package static func library(of user: String) -> String { "library/\(user)/" }

    package var original: String { prefix + "original" }
    /// An Apple Live Photo's video, or a video's playable copy.
    package var motion: String { prefix + "motion" }
    package var preview: String { prefix + "preview.jpg" }
    package var thumbnail: String { prefix + "thumbnail.jpg" }
}
