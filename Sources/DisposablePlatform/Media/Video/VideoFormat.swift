/// The video containers we accept (SOC-4, LIB-1), recognised from their first bytes like `ImageFormat`: ISO media with
/// a video brand (MP4, QuickTime) and Matroska/WebM (what browsers record). Anything else — a playlist, a list of
/// files, a photo — is not one, whatever its name says.
import DisposableCore

package enum VideoFormat: String, Sendable, CaseIterable {
    case mp4, mov, webm

    package init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        if Motion.isVideoContainer(head) {
            self = Motion.contentType(head) == "video/quicktime" ? .mov : .mp4
        } else if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            self = .webm
        } else {
            return nil
        }
    }

    package var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .webm: "video/webm"
        }
    }

    package var fileExtension: String { rawValue }
}

/// What a stored original is: a photo or a video.
package enum MediaFormat: Sendable, Equatable {
    case image(ImageFormat)
    case video(VideoFormat)

    package init?(rawValue: String) {
        if let image = ImageFormat(rawValue: rawValue) {
            self = .image(image)
        } else if let video = VideoFormat(rawValue: rawValue) {
            self = .video(video)
        } else {
            return nil
        }
    }

    package var rawValue: String {
        switch self {
        case .image(let format): format.rawValue
        case .video(let format): format.rawValue
        }
    }

    package var mimeType: String {
        switch self {
        case .image(let format): format.mimeType
        case .video(let format): format.mimeType
        }
    }

    package var fileExtension: String {
        switch self {
        case .image(let format): format.fileExtension
        case .video(let format): format.fileExtension
        }
    }

    package var isVideo: Bool {
        if case .video = self { true } else { false }
    }
}
