/// Schema step 55: how often an event was downloaded — whole (a ZIP) or one original at a time — for its organizers'
/// numbers. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v55DownloadCounts = Migration(
        version: 55, name: "download counts",
        statements: [
            "ALTER TABLE events ADD COLUMN zip_downloads BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE events ADD COLUMN original_downloads BIGINT NOT NULL DEFAULT 0",
        ]
    )
}
