import DisposableCore
import Foundation

/// What ffprobe says about a video.
package struct VideoInfo: Sendable, Equatable {
    /// Seconds; nil when the file does not say (a browser's WebM recording often does not).
    package let duration: Double?
    /// As shown: a phone's portrait video, stored sideways with a rotation, reports its upright size.
    package let width: Int
    package let height: Int
    package let videoCodec: String
    package let pixelFormat: String?
    package let audioCodec: String?
    package let container: String
    package let rotated: Bool
    /// When it was recorded: QuickTime's local creation date (as floating time, like EXIF), else `creation_time`.
    package let recordedAt: Date?
    /// The stream described here, by its index in the file: the one every ffmpeg run maps, so that what is checked
    /// is what is decoded.
    package var streamIndex = 0
    /// The largest picture among all the file's video streams (a cover, a second track), each decodable too.
    package var largestStream = Size()

    package struct Size: Sendable, Equatable {
        package var width = 0
        package var height = 0
    }

    /// Browsers play it as stored: H.264 in 4:2:0 with AAC (or no sound) in an MP4/QuickTime file, not rotated.
    package var playsInBrowsers: Bool {
        container.hasPrefix("mov,mp4") && videoCodec == "h264" && pixelFormat == "yuv420p" && (audioCodec == nil || audioCodec == "aac")
            && !rotated
    }
}

/// The bounds a video must keep (checked before anything decodes it).
package struct VideoLimits: Sendable {
    package var maxSide = 4096
    package var maxPixels = 4096 * 2160
    /// Longer videos are refused; nil: any length.
    package var maxSeconds: Double? = nil

    package init(maxSeconds: Double? = nil) {
        self.maxSeconds = maxSeconds
    }
}

/// A video made ready to show: a playable H.264/AAC MP4 (or nil when the original plays as it is) and a poster frame.
package struct RenderedVideo: Sendable {
    package let playable: URL?
    package let poster: URL
    package let info: VideoInfo

    package init(playable: URL?, poster: URL, info: VideoInfo) {
        self.playable = playable
        self.poster = poster
        self.info = info
    }
}

/// Probes, checks and renders videos with `VideoTool` (SOC-4, LIB-1).
package struct VideoProcessor: Sendable {
    package let tool: VideoTool

    package init(tool: VideoTool) {
        self.tool = tool
    }
    /// The longest side of the playable copy and of the poster.
    package static let playableSide = 1280
    /// The playable copy's size is bounded whatever the input: `-fs`.
    package static let playableMaxBytes = 256 << 20

    /// Checks what an upload is before it is kept: a real video container (415 otherwise), its size on screen and
    /// its length within `limits` (422).
    package func inspect(_ path: String, limits: VideoLimits) async throws -> VideoInfo {
        let info: VideoInfo
        do {
            info = try Self.parse(try await tool.probe(path))
        } catch {
            throw Self.notAVideo
        }
        let (largestWidth, largestHeight) = (info.largestStream.width, info.largestStream.height)
        guard info.width <= limits.maxSide, info.height <= limits.maxSide, info.width * info.height <= limits.maxPixels,
            largestWidth <= limits.maxSide, largestHeight <= limits.maxSide, largestWidth * largestHeight <= limits.maxPixels
        else {
            throw Problem(
                .unprocessableContent, "video-too-large", title: "Video too large",
                detail: "This video is \(max(info.width, largestWidth))×\(max(info.height, largestHeight)); "
                    + "videos can be at most \(limits.maxSide) pixels on a side.")
        }
        if let maxSeconds = limits.maxSeconds, let duration = info.duration, duration > maxSeconds + 0.5 {
            throw Problem(
                .unprocessableContent, "video-too-long", title: "Video too long",
                detail: "This video lasts \(Self.clock(duration)); videos can be at most \(Int(maxSeconds)) seconds.")
        }
        return info
    }

    /// The playable copy (unless `info` plays as it is and `transcode` is false) and the poster, in `directory`.
    /// The copy is at most `maxSeconds` long, H.264/AAC, at most 1280 pixels a side, without the file's metadata (no
    /// location, no device), upright. `timeout` bounds each ffmpeg run; `lane` says whose turn it waits for.
    package func render(
        _ path: String, info: VideoInfo, transcode: Bool, maxSeconds: Double?, into directory: URL, lane: VideoTool.Lane
    ) async throws -> RenderedVideo {
        let seconds = min(info.duration ?? maxSeconds ?? 600, maxSeconds ?? .greatestFiniteMagnitude)
        let timeout = 60 + 4 * seconds
        var source = path
        var playable: URL? = nil
        var shown = info
        if transcode || !info.playsInBrowsers {
            let output = directory.appendingPathComponent("playable.mp4")
            var arguments = VideoTool.inputOptions + ["-threads", "2", "-i", path, "-map", "0:\(info.streamIndex)", "-map", "0:a:0?"]
            if let maxSeconds { arguments += ["-t", String(maxSeconds)] }
            arguments += [
                "-vf",
                "scale=w='min(iw,\(Self.playableSide))':h='min(ih,\(Self.playableSide))':force_original_aspect_ratio=decrease"
                    + ":force_divisible_by=2",
                "-fpsmax", "30", "-c:v", "libx264", "-preset", "veryfast", "-crf", "26", "-maxrate", "4M", "-bufsize", "8M",
                "-pix_fmt", "yuv420p", "-profile:v", "high", "-threads", "2", "-c:a", "aac", "-b:a", "128k", "-ac", "2",
                "-map_metadata", "-1", "-map_chapters", "-1", "-dn", "-sn", "-movflags", "+faststart",
                "-fs", String(Self.playableMaxBytes), "-f", "mp4", output.path,
            ]
            try await tool.ffmpeg(arguments, timeout: timeout, lane: lane)
            playable = output
            source = output.path
            let made = try Self.parse(try await tool.probe(output.path))
            shown = VideoInfo(
                duration: made.duration, width: made.width, height: made.height, videoCodec: made.videoCodec,
                pixelFormat: made.pixelFormat, audioCodec: made.audioCodec, container: made.container, rotated: false,
                recordedAt: info.recordedAt)
        }
        let poster = directory.appendingPathComponent("poster.jpg")
        var arguments = VideoTool.inputOptions
        if (shown.duration ?? 0) >= 2 { arguments += ["-ss", "1"] }
        arguments += [
            "-threads", "2", "-i", source, "-map", playable == nil ? "0:\(info.streamIndex)" : "0:v:0", "-frames:v", "1",
            "-vf", "scale=w='min(iw,\(Self.playableSide))':h='min(ih,\(Self.playableSide))':force_original_aspect_ratio=decrease",
            "-q:v", "3", "-map_metadata", "-1", "-f", "image2", "-update", "1", poster.path,
        ]
        try await tool.ffmpeg(arguments, timeout: 60, lane: lane)
        return RenderedVideo(playable: playable, poster: poster, info: shown)
    }

    package static let notAVideo = Problem(
        .unsupportedMediaType, "not-a-video", title: "Not a video we can play",
        detail: "This file is not a video we can play. Send an MP4, QuickTime (.mov) or WebM video.")

    /// `1:05`, or `10:00`.
    package static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }

    // MARK: ffprobe's JSON

    private struct Probe: Decodable {
        struct Stream: Decodable {
            struct SideData: Decodable { let rotation: Double? }
            let index: Int?
            let codec_type: String?
            let codec_name: String?
            let width: Int?
            let height: Int?
            let pix_fmt: String?
            let duration: String?
            let tags: [String: String]?
            let side_data_list: [SideData]?
        }
        struct Format: Decodable {
            let format_name: String?
            let duration: String?
            let tags: [String: String]?
        }
        let streams: [Stream]?
        let format: Format?
    }

    package struct Unreadable: Error { package init() {} }

    package static func parse(_ json: Data) throws -> VideoInfo {
        let probe = try JSONDecoder().decode(Probe.self, from: json)
        guard let format = probe.format, let container = format.format_name,
            let video = probe.streams?.first(where: { $0.codec_type == "video" && $0.codec_name != "mjpeg" && $0.codec_name != "png" }),
            let codec = video.codec_name, let width = video.width, let height = video.height, width > 0, height > 0
        else { throw Unreadable() }
        let rotation = video.side_data_list?.compactMap(\.rotation).first ?? video.tags?["rotate"].flatMap(Double.init) ?? 0
        let sideways = Int(abs(rotation).rounded()) % 180 == 90
        let duration = (format.duration ?? video.duration).flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let tags = format.tags ?? [:]
        let pictures = (probe.streams ?? []).filter { $0.codec_type == "video" }.map {
            VideoInfo.Size(width: $0.width ?? 0, height: $0.height ?? 0)
        }
        var info = VideoInfo(
            duration: duration, width: sideways ? height : width, height: sideways ? width : height, videoCodec: codec,
            pixelFormat: video.pix_fmt, audioCodec: probe.streams?.first(where: { $0.codec_type == "audio" })?.codec_name,
            container: container, rotated: rotation != 0,
            recordedAt: tags["com.apple.quicktime.creationdate"].flatMap(floatingDate) ?? tags["creation_time"].flatMap(utcDate))
        info.streamIndex = video.index ?? 0
        info.largestStream = pictures.max { $0.width * $0.height < $1.width * $1.height } ?? .init(width: width, height: height)
        return info
    }

    /// `2023-05-14T18:30:00+0200` → 18:30 read as UTC (the local clock time, as EXIF's dates are kept).
    private static func floatingDate(_ text: String) -> Date? {
        utcDate(String(text.prefix(19)) + "Z")
    }

    private static func utcDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
