import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation

/// One post of an event's feed: a photo, a drawing (a photo whose source is `drawing`) or a note (SOC-1).
public struct Photo: Sendable, Equatable {
    public let id: String
    public let eventID: String
    /// The guest id, or the organizer's user id.
    public let uploaderID: String
    public let shooterName: String
    /// The shooter's own running number: their 1st, 2nd… shot (for `<Name><N>.<ext>`).
    public let shooterNumber: Int
    public let sha256: String
    package let format: MediaFormat
    public let source: PhotoSource
    public let byteSize: Int64
    public let width: Int?
    public let height: Int?
    /// EXIF DateTimeOriginal, else the upload time.
    public let takenAt: Date
    public let uploadedAt: Date
    public let status: PhotoStatus
    /// False while it waits for the organizer's approval (ORG-4); only its shooter and the organizer see it then.
    public let approved: Bool
    public let failure: String?
    /// The shooter's words about it (SOC-1); a note's message.
    public var caption: String? = nil
    public var kind: PostKind = .photo
    /// SOC-2, kept in step with the likes and comments.
    public var likeCount = 0
    public var commentCount = 0
    /// A video's length (SOC-4).
    public var duration: Double? = nil
    /// The size of a video's playable copy.
    public var videoBytes: Int64? = nil
    /// Shown with its thumbnail while its preview waits for the render queue.
    public var previewPending = false
    /// Shown by the phone's first look (`FirstLook`) until the server's renders exist: that picture's grey miniature,
    /// to compare the server's thumbnail with.
    public var firstLook: [UInt8]? = nil

    public var showsFirstLook: Bool { firstLook != nil }

    /// Notes are words only: no file, nothing to render or download.
    public var hasFile: Bool { kind != .note }

    /// The name it is downloaded under: shooter's name (letters and digits only) + number, e.g. `Maggie3.jpg`.
    public var downloadName: String {
        var letters = String.UnicodeScalarView()
        for scalar in shooterName.unicodeScalars where Self.isLetterOrDigit(scalar) { letters.append(scalar) }
        let name = String(letters)
        let base = prefix(name.isEmpty ? "Photo" : String(name.prefix(40)))
        return "\(base)\(shooterNumber).\(kind == .note ? "txt" : format.fileExtension)"
    }

    /// Drawings and notes say what they are, so that they sort apart from the photos in a ZIP.
    private func prefix(_ name: String) -> String {
        if kind == .note { return name + "Note" }
        return source == .drawing ? name + "Drawing" : name
    }

    /// `CharacterSet.alphanumerics`, with ASCII answered directly (most names; the set lookup was 5 % of a gallery page).
    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0..<0x80: false
        default: CharacterSet.alphanumerics.contains(scalar)
        }
    }
}
