import DisposableCore
import DisposablePlatform
import Foundation

/// How much transcoding one account's library videos may cost a day: a 276 KB WebM of three
/// minutes of black costs twenty seconds of ffmpeg, 23 MB of 4K black an hour, and an account should not be able to
/// keep the machine busy with them. Counted in seconds of video at 1080p or less (a larger picture counts in
/// proportion); a video past the budget waits, processing, until the day's transcodes make room — never refused,
/// never lost. What was transcoded is kept in `transcode_usage` (`TranscodeUsageRepository`).
package struct TranscodeBudget: Sendable {
    let usage: TranscodeUsageRepository
    package let clock: any AppClock
    /// 1080p-equivalent seconds an account's library videos may be transcoded in any 24 hours.
    package let secondsPerDay: Int64

    init(usage: TranscodeUsageRepository, clock: any AppClock, secondsPerDay: Int64) {
        self.usage = usage
        self.clock = clock
        self.secondsPerDay = secondsPerDay
    }

    package static let window: TimeInterval = 24 * 3600

    /// What transcoding `info` costs: its length (the cap when the file does not say) by its size against 1080p.
    package static func cost(_ info: VideoInfo, maxSeconds: Double?) -> Int64 {
        let seconds = min(info.duration ?? maxSeconds ?? 600, maxSeconds ?? .greatestFiniteMagnitude)
        let factor = max(1, Double(info.width * info.height) / Double(1920 * 1080))
        return max(1, Int64((seconds * factor).rounded(.up)))
    }

    /// Takes `cost` from the account's budget now, before the transcode, or says how long to wait: two transcodes
    /// admitted at once cannot both take what is left. A transcode that then fails keeps what it took (a day at most).
    package func reserve(for userID: String, cost: Int64) async throws -> TimeInterval? {
        let now = clock.now
        let since = now - Self.window
        let budget = secondsPerDay
        return try await usage.reserve(cost, for: userID, at: now, since: since, forgettingBefore: since) { used, oldest in
            guard used > 0, used + cost > budget else { return nil }
            return max(60, (oldest ?? now).timeIntervalSince(since))
        }
    }
}
