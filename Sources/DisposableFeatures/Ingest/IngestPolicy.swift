/// What one entry point takes in: which kinds of file, how many bytes, pixels, frames and seconds.
/// `Ingest` checks every file against the policy of the place it is sent to — the same checks, the same refusals.
import DisposableCore
import DisposablePlatform

package struct IngestPolicy: Sendable {
    /// A photo's largest file.
    package var maxImageBytes: Int64
    /// All frames together (MED-3): a file past this is refused before anything decodes it.
    package var maxPixels: Int
    package var videos: Videos
    /// Sound files (a capsule's song clip) instead of pictures.
    package var sounds = false

    package enum Videos: Sendable {
        /// Taken, within these bounds (length, size) and up to `maxBytes`.
        case accepted(VideoLimits, maxBytes: Int64)
        /// Refused with this answer (photos only here).
        case refused(Problem)
    }

    /// The largest body worth receiving under this policy.
    package var maxBytes: Int64 {
        if case .accepted(_, let maxVideoBytes) = videos { return max(maxImageBytes, maxVideoBytes) }
        return maxImageBytes
    }

    package var takesVideos: Bool {
        if case .accepted = videos { return true }
        return false
    }
}

extension IngestPolicy {
    /// SOC-4: an event's videos last at most 30 seconds (longer ones are refused when their file says how long, and
    /// cut at 30 seconds when it does not, as browsers' recordings often do not).
    package static let eventVideoLimits = VideoLimits(maxSeconds: 30)

    /// A profile picture: re-encoded to 400 px, so nothing larger than a big photo is worth decoding.
    package static func avatar(maxPixels: Int) -> IngestPolicy {
        IngestPolicy(maxImageBytes: 15 << 20, maxPixels: min(maxPixels, 50_000_000), videos: .refused(.picturesOnly))
    }

    /// A capsule's song: a whole song may be sent; only its first 30 seconds are kept (`AudioClip`).
    package static let songClip = IngestPolicy(maxImageBytes: AudioClip.maxUploadBytes, maxPixels: 0, videos: .refused(.picturesOnly), sounds: true)
}

extension Problem {
    package static let videosNotAllowed = Problem(
        .unsupportedMediaType, "videos-not-allowed", title: "Photos only",
        detail: "This event takes photos only: the organizer has not allowed videos.")

    package static let videosUnavailable = Problem(
        .unsupportedMediaType, "videos-unavailable", title: "Videos not available",
        detail: "This server cannot keep videos (ffmpeg is not installed). Photos are welcome.")

    package static let picturesOnly = Problem(
        .unsupportedMediaType, "unsupported-format", title: "Not a picture we accept",
        detail: "This file is not a picture we accept. Send JPEG, PNG, HEIC/HEIF, WebP, AVIF or GIF.")
}
