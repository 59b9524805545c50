import DisposableCore
import Foundation

/// A song's short clip for a capsule (CAP-2): whatever audio file the owner picks (MP3, M4A, Ogg, WAV, FLAC…) becomes
/// its first 30 seconds as AAC in an M4A, without the file's metadata (no tags, no cover art) — through the same
/// guarded ffmpeg as videos. Not an audio file → 415.
package struct AudioClip: Sendable {
    package let tool: VideoTool

    package init(tool: VideoTool) {
        self.tool = tool
    }

    package static let maxSeconds = 30.0
    /// A whole song may be sent; only its start is kept.
    package static let maxUploadBytes: Int64 = 30 << 20

    package static let notAudio = Problem(
        .unsupportedMediaType, "not-audio", title: "Not a sound file we can play",
        detail: "This file is not a sound we can play. Send an MP3, M4A, Ogg, WAV or FLAC file.")

    /// 415 unless ffprobe finds a sound in the file at `path` (`Ingest.identifySound`).
    package func check(_ path: String) async throws {
        guard let probe = try? JSONDecoder().decode(Probe.self, from: try await tool.probe(path, inputOptions: VideoTool.audioInputOptions)),
            probe.streams?.contains(where: { $0.codec_type == "audio" }) == true
        else { throw Self.notAudio }
    }

    /// The clip made from the file at `path` (checked), in `directory`.
    package func make(from path: String, into directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("clip.m4a")
        try await tool.ffmpeg(
            VideoTool.audioInputOptions + [
                "-threads", "2", "-i", path, "-map", "0:a:0", "-t", String(Self.maxSeconds), "-vn", "-c:a", "aac", "-b:a", "128k", "-ac", "2",
                "-map_metadata", "-1", "-map_chapters", "-1", "-movflags", "+faststart", "-fs", String(2 << 20), "-f", "ipod", output.path,
            ], timeout: 120, lane: .library)
        return output
    }

    private struct Probe: Decodable {
        struct Stream: Decodable { let codec_type: String? }
        let streams: [Stream]?
    }
}
