/// Schema step 16: wall links. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v16WallLinks = Migration(
        version: 16,
        name: "wall links",
        statements: [
            "ALTER TABLE events ADD COLUMN wall_key TEXT",
            "CREATE UNIQUE INDEX events_wall_key ON events (wall_key)",
        ]
    )
}
