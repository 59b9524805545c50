import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Names kept before the tree composed them (NFC): a Mac sent "é" decomposed, and those paths would no longer be
/// found once every request's path is composed. Renamed once, at start.
extension DAVRepository {
    /// Renames each path (and its folder's) to its composed form, unless another entry holds that form already (a
    /// client sent both forms before); returns how many were renamed and how many were left as they are.
    package func composeNames() async throws -> (renamed: Int, kept: Int) {
        // Only paths with a character past ASCII can change.
        let wider = database.kind == .postgres ? "length(path) <> octet_length(path)" : "length(path) <> length(CAST(path AS BLOB))"
        let rows = try await database.read { db in
            try await db.raw("SELECT user_id, path, parent FROM dav_entries WHERE \(unsafeRaw: wider) ORDER BY length(path)").all()
        }
        var (renamed, kept) = (0, 0)
        for row in rows {
            let (userID, path, parent) = (
                try row.decode(column: "user_id", as: String.self), try row.decode(column: "path", as: String.self),
                try row.decode(column: "parent", as: String.self)
            )
            let composed = path.precomposedStringWithCanonicalMapping
            // Swift compares strings by canonical equivalence: the bytes tell the two forms apart.
            guard Array(composed.utf8) != Array(path.utf8) else { continue }
            let moved = try await database.sql { db in
                try await db.raw(
                    """
                    UPDATE dav_entries SET path = \(bind: composed), parent = \(bind: parent.precomposedStringWithCanonicalMapping)
                    WHERE user_id = \(bind: userID) AND path = \(bind: path)
                      AND NOT EXISTS (SELECT 1 FROM dav_entries o WHERE o.user_id = \(bind: userID) AND o.path = \(bind: composed))
                    RETURNING path
                    """
                ).first() != nil
            }
            if moved { renamed += 1 } else { kept += 1 }
        }
        return (renamed, kept)
    }
}
