import Foundation

/// How much transcoding one account's library videos may cost a day: a 276 KB WebM of three
/// minutes of black costs twenty seconds of ffmpeg, 23 MB of 4K black an hour, and an account should not be able to
/// keep the machine busy with them. Counted in seconds of video at 1080p or less (a larger picture counts in
/// proportion); a video past the budget waits, processing, until the day's transcodes make room — never refused,
/// never lost. What was transcoded is kept in `transcode_usage` (`TranscodeUsageRepository`).
struct TranscodeBudget: Sendable {
    let usage: TranscodeUsageRepository
    let clock: any AppClock
    /// 1080p-equivalent seconds an account's library videos may be transcoded in any 24 hours.
    let secondsPerDay: Int64

    static let window: TimeInterval = 24 * 3600

    /// What transcoding `info` costs: its length (the cap when the file does not say) by its size against 1080p.
    static func cost(_ info: VideoInfo, maxSeconds: Double?) -> Int64 {
        let seconds = min(info.duration ?? maxSeconds ?? 600, maxSeconds ?? .greatestFiniteMagnitude)
        let factor = max(1, Double(info.width * info.height) / Double(1920 * 1080))
        return max(1, Int64((seconds * factor).rounded(.up)))
    }

    /// Nil when a transcode costing `cost` may run now; else how long to wait. A single video larger than the whole
    /// budget runs when nothing else has been transcoded that day.
    func delay(for userID: String, cost: Int64) async throws -> TimeInterval? {
        let now = clock.now
        let since = now - Self.window
        let (used, oldest) = try await usage.used(by: userID, since: since)
        guard used > 0, used + cost > secondsPerDay else { return nil }
        return max(60, (oldest ?? now).timeIntervalSince(since))
    }

    func record(_ seconds: Int64, for userID: String) async throws {
        let now = clock.now
        try await usage.record(seconds, for: userID, at: now, forgettingBefore: now - Self.window)
    }
}

/// A render that should run later, not fail: its job goes back to the queue for `delay` seconds, no attempt counted.
struct RenderLater: Error {
    let delay: TimeInterval
}
