/// Schema step 56: a library photo's capture time as the clock read where it was taken — the wall-clock time (read
/// as UTC) and, when the file said, its offset from UTC — so that it shows as it was there, not in the reader's
/// zone. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v56LocalCaptureTimes = Migration(
        version: 56, name: "local capture times",
        statements: [
            "ALTER TABLE library_assets ADD COLUMN taken_local BIGINT",
            "ALTER TABLE library_assets ADD COLUMN taken_offset INTEGER",
        ]
    )
}
