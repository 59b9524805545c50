import DisposableAPI
import Foundation

/// One photo of an event.
public struct Photo: Sendable, Equatable {
    public let id: String
    public let eventID: String
    /// The guest id, or the organizer's user id.
    public let uploaderID: String
    public let shooterName: String
    /// The shooter's own running number: their 1st, 2nd… shot (for `<Name><N>.<ext>`).
    public let shooterNumber: Int
    public let sha256: String
    public let format: ImageFormat
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
    /// The shooter's words about it (SOC-1).
    public var caption: String? = nil

    /// The name it is downloaded under: shooter's name (letters and digits only) + number, e.g. `Maggie3.jpg`.
    public var downloadName: String {
        var letters = String.UnicodeScalarView()
        for scalar in shooterName.unicodeScalars where Self.isLetterOrDigit(scalar) { letters.append(scalar) }
        let base = String(letters)
        return "\(base.isEmpty ? "Photo" : String(base.prefix(40)))\(shooterNumber).\(format.fileExtension)"
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
