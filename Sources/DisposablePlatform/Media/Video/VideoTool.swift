import DisposableCore
import Foundation
import NIOConcurrencyHelpers
import NIOPosix

/// ffmpeg and ffprobe from the system, run the only way we run them on someone's upload (SOC-4, LIB-1): an argument
/// array (no shell), nothing on standard input, local files only (`-protocol_whitelist file`), the demuxers of real
/// video containers only (an HLS playlist or a concat list dressed as `.mp4` cannot make them read anything else), few
/// threads, and a time limit after which the process is killed. Transcodes run one at a time on a thread of their own.
public struct VideoTool: Sendable {
    package let ffmpeg: String
    package let ffprobe: String
    /// This server's library transcodes running or waiting: a media worker does not wait in that queue.
    private let libraryQueued = NIOLockedValueBox(0)

    package init(ffmpeg: String, ffprobe: String) {
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// Demuxers an upload may be read with: ISO media (MP4, QuickTime, 3GP) and Matroska/WebM (what browsers record).
    package static let demuxers = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"
    /// Options every input gets, before its `-i`.
    package static let inputOptions = ["-protocol_whitelist", "file", "-format_whitelist", demuxers]
    /// For a song's clip (CAP-2): the video containers above (an M4A is one) and the audio files people keep songs in.
    package static let audioDemuxers = demuxers + ",mp3,ogg,wav,flac,aac"
    package static let audioInputOptions = ["-protocol_whitelist", "file", "-format_whitelist", audioDemuxers]

    /// Whose transcodes: a party's videos (the event happening now) never wait behind a library's import.
    package enum Lane: Sendable {
        case event
        /// Library videos, capsule songs: one at a time, behind nothing but each other.
        case library
    }

    /// One transcode at a time in each lane, however many uploads arrive: a wedding's videos queue, the machine
    /// keeps its cores, and a long library video (its own lane) holds up no guest's.
    private static let eventTranscodes: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()
    private static let libraryTranscodes: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()
    /// Whether a library transcode of this server is running or waiting: a library render then steps back for a
    /// few seconds rather than hold one of the media workers that a party's photos need.
    package var libraryLaneBusy: Bool { libraryQueued.withLockedValue { $0 > 0 } }

    package struct Failed: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// The tools found on `PATH` (or named by `DISPOSABLE_FFMPEG` / `DISPOSABLE_FFPROBE`), or nil without them.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> VideoTool? {
        func find(_ name: String, _ variable: String) -> String? {
            if let given = environment[variable], FileManager.default.isExecutableFile(atPath: given) { return given }
            let paths = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin", "/usr/local/bin"]
            return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        guard let ffmpeg = find("ffmpeg", "DISPOSABLE_FFMPEG"), let ffprobe = find("ffprobe", "DISPOSABLE_FFPROBE") else { return nil }
        return VideoTool(ffmpeg: ffmpeg, ffprobe: ffprobe)
    }

    /// ffprobe's JSON about `input` (a request waits on it: short, on the request pool).
    package func probe(_ input: String, inputOptions: [String] = Self.inputOptions, timeout: TimeInterval = 15) async throws -> Data {
        let arguments =
            ["-hide_banner", "-loglevel", "error"] + inputOptions
            + ["-show_format", "-show_streams", "-of", "json", "-i", input]
        return try await WorkPools.requests.runIfActive { try Self.run(ffprobe, arguments, timeout: timeout) }
    }

    /// ffmpeg with `arguments` after the common ones, one at a time in its lane.
    package func ffmpeg(_ arguments: [String], timeout: TimeInterval, lane: Lane) async throws {
        let all = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error", "-y"] + arguments
        switch lane {
        case .event:
            _ = try await Self.eventTranscodes.runIfActive { try Self.run(ffmpeg, all, timeout: timeout) }
        case .library:
            libraryQueued.withLockedValue { $0 += 1 }
            defer { libraryQueued.withLockedValue { $0 -= 1 } }
            _ = try await Self.libraryTranscodes.runIfActive { try Self.run(ffmpeg, all, timeout: timeout) }
        }
    }

    /// Runs `executable` and returns its standard output (at most 4 MB); its standard error says why it failed.
    private static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws -> Data {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("disposable-video-\(UUID().uuidString)")
        let out = scratch.appendingPathExtension("out")
        let err = scratch.appendingPathExtension("err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        // posix_spawn and waitpid, not Foundation's Process: its run() crashed here copying its arguments while
        // other threads launched processes (a CI run: memcpy on a bad pointer in Process.run), and the tests had
        // already seen it lose track of children under load.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_TRUNC, 0)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_TRUNC, 0)
        // Nothing else of ours: an inherited client socket would stay open in ffmpeg after the server closed it.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let copy = { (text: String) -> UnsafeMutablePointer<CChar>? in strdup(text) }
        let argv = ([executable] + arguments).map(copy) + [nil]
        let envp = ["PATH=/usr/bin:/bin", "LC_ALL=C"].map(copy) + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failed(description: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
        // The deadline kills the child only while it is unreaped (a reaped pid may already be someone else's).
        let reaped = NIOLockedValueBox(false)
        let killer = DispatchWorkItem { reaped.withLockedValue { if !$0 { _ = kill(pid, SIGKILL) } } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        var status: Int32 = 0
        reaped.withLockedValue { done in
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            done = true
        }
        killer.cancel()
        if status & 0x7F != 0 {
            throw Failed(description: "\((executable as NSString).lastPathComponent) was stopped after \(Int(timeout)) s")
        }
        guard (status >> 8) & 0xFF == 0 else {
            let message = String(decoding: (try? Data(contentsOf: err))?.suffix(2000) ?? Data(), as: UTF8.self)
            throw Failed(description: message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let handle = try FileHandle(forReadingFrom: out)
        defer { try? handle.close() }
        return try handle.read(upToCount: 4 << 20) ?? Data()
    }
}
