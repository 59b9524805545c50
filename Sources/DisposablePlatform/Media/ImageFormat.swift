/// The image formats we accept (UP-5), recognised from their first bytes — never from a file name
/// or a Content-Type, which the sender controls.
import DisposableCore

public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, heic, avif

    /// Enough leading bytes to recognise every format.
    package static let sniffLength = 32

    package init?(sniffing bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(Self.sniffLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4), b.count >= 12 {
            // ISO base media: the major brand says which kind of image it is.
            switch String(decoding: b[8..<12], as: UTF8.self) {
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1": self = .heic
            case "avif", "avis": self = .avif
            default: return nil
            }
        } else {
            return nil
        }
    }

    package var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }

    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        default: rawValue
        }
    }

    /// The libvips loader the shim uses for it.
    package var loader: String {
        switch self {
        case .heic, .avif: "heif"
        default: rawValue
        }
    }
}
