/// Schema step 24: live photos. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v24LivePhotos = Migration(
        version: 24,
        name: "live photos",
        statements: [
            // LIB-3: an asset's motion. `embedded`: a Google motion photo, whose original holds the video at
            // `motion_offset` for `motion_size` bytes; `file`: an Apple Live Photo's video, stored beside the still
            // (`LibraryFiles.motion`) and counted in the quota. `motion_type` is its Content-Type.
            "ALTER TABLE library_assets ADD COLUMN motion TEXT",
            "ALTER TABLE library_assets ADD COLUMN motion_offset BIGINT",
            "ALTER TABLE library_assets ADD COLUMN motion_size BIGINT",
            "ALTER TABLE library_assets ADD COLUMN motion_type TEXT",
        ]
    )
}
