/// Schema step 27: captions. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v27Captions = Migration(
        version: 27,
        name: "captions",
        statements: [
            // SOC-1: the shooter's caption of a photo (at most 300 characters, no control characters), or NULL.
            "ALTER TABLE photos ADD COLUMN caption TEXT"
        ]
    )
}
