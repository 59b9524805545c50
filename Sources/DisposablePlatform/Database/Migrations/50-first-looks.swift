/// Schema step 50: a photo shown by the phone's first look until the server's renders exist — that picture's grey
/// miniature (hex), to compare them with — and whether it turned out to be another picture.
/// Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v50FirstLooks = Migration(
        version: 50, name: "first looks",
        statements: [
            "ALTER TABLE photos ADD COLUMN first_look TEXT",
            "ALTER TABLE photos ADD COLUMN first_look_refuted BOOLEAN NOT NULL DEFAULT FALSE",
        ]
    )
}
