/// Schema step 19: session devices. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v19SessionDevices = Migration(
        version: 19,
        name: "session devices",
        // "Chrome on Android": what the account's sessions page names each session by.
        statements: ["ALTER TABLE access_tokens ADD COLUMN device TEXT"]
    )
}
