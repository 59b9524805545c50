/// Schema step 42: a library asset's caption. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v42LibraryCaptions = Migration(
        version: 42, name: "library captions",
        statements: [
            // The words an import brings with a photo (an Instagram post's caption), or NULL.
            "ALTER TABLE library_assets ADD COLUMN caption TEXT"
        ]
    )
}
