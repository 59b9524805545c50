/// Schema step 2: instance settings. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v02InstanceSettings = Migration(
        version: 2,
        name: "instance settings",
        statements: ["CREATE TABLE instance_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)"]
    )
}
