/// Schema step 21: avatars. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v21Avatars = Migration(
        version: 21,
        name: "avatars",
        // NULL: no picture; else a number that changes with each new one (its URL carries it, so caches follow).
        statements: ["ALTER TABLE users ADD COLUMN avatar_version INTEGER"]
    )
}
