/// Schema step 30: event videos. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v30EventVideos = Migration(
        version: 30, name: "event videos",
        statements: [
            // SOC-4: short videos in events, where the organizer allows them.
            "ALTER TABLE events ADD COLUMN allow_videos BOOLEAN NOT NULL DEFAULT FALSE",
            // A video post's length (for its tile) and its playable copy's size (for ranges).
            "ALTER TABLE photos ADD COLUMN duration_ms BIGINT",
            "ALTER TABLE photos ADD COLUMN video_bytes BIGINT",
        ]
    )
}
