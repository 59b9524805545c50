/// Schema step 37: capsule song clips. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v37CapsuleSongClips = Migration(
        version: 37, name: "capsule song clips",
        statements: [
            // A song's short clip (AAC), beside the capsule's collage; its version names the file's address.
            "ALTER TABLE capsules ADD COLUMN clip_version INTEGER"
        ]
    )
}
