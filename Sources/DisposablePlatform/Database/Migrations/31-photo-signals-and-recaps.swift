/// Schema step 31: photo signals and recaps. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v31PhotoSignalsAndRecaps = Migration(
        version: 31, name: "photo signals and recaps",
        statements: [
            // CAP-1/2: what the selection knows of each picture (PhotoSignals as JSON), measured at ingest.
            "ALTER TABLE photos ADD COLUMN signals TEXT",
            "ALTER TABLE library_assets ADD COLUMN signals TEXT",
            // CAP-1: everyone was told the event's recap is ready.
            "ALTER TABLE events ADD COLUMN recap_announced BOOLEAN NOT NULL DEFAULT FALSE",
        ]
    )
}
