/// Schema step 25: library videos. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v25LibraryVideos = Migration(
        version: 25,
        name: "library videos",
        statements: [
            // LIB-1: a video asset's length. Its playable copy is its `motion`: `embedded` over the whole original when
            // browsers play that as it is, else `derivative`, an H.264 MP4 made from it (not counted in the quota).
            "ALTER TABLE library_assets ADD COLUMN duration_ms BIGINT"
        ]
    )
}
