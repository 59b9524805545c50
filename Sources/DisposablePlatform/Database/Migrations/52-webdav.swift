/// Schema step 52: the library's tree as WebDAV clients made it — folders, the paths photos and videos were put at
/// (each naming a library asset), and plain files clients keep beside them. Released steps are never edited.
import DisposableCore

extension Migration {
    package static let v52WebDAV = Migration(
        version: 52, name: "webdav",
        statements: [
            // `path` is below the library ("DCIM/Camera/IMG_1.jpg"), `parent` its folder ("" at the top); an asset's
            // entry goes with the asset; a plain file's bytes are under `file_prefix`; `properties` holds what clients
            // set with PROPPATCH (JSON).
            """
            CREATE TABLE dav_entries (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                path TEXT NOT NULL,
                parent TEXT NOT NULL,
                kind TEXT NOT NULL,
                asset_id TEXT REFERENCES library_assets(id) ON DELETE CASCADE,
                file_prefix TEXT,
                byte_size BIGINT NOT NULL DEFAULT 0,
                etag TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                modified_at BIGINT NOT NULL,
                properties TEXT,
                PRIMARY KEY (user_id, path)
            )
            """,
            "CREATE INDEX dav_entries_children ON dav_entries (user_id, parent)",
            "CREATE INDEX dav_entries_by_asset ON dav_entries (asset_id)",
        ]
    )
}
