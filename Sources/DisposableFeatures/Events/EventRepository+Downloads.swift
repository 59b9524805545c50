import DisposableCore
import DisposablePlatform
import SQLKit

extension EventRepository {
    package enum Download: Sendable {
        case zip, original
    }

    /// One more download of the event: a ZIP, or one original.
    package func countDownload(eventID: String, _ kind: Download) async throws {
        try await database.sql { db in
            switch kind {
            case .zip: try await db.raw("UPDATE events SET zip_downloads = zip_downloads + 1 WHERE id = \(bind: eventID)").run()
            case .original:
                try await db.raw("UPDATE events SET original_downloads = original_downloads + 1 WHERE id = \(bind: eventID)").run()
            }
        }
    }

    /// How often the event was downloaded: ZIPs, originals.
    package func downloads(eventID: String) async throws -> (zips: Int, originals: Int) {
        try await database.read { db in
            guard let row = try await db.raw("SELECT zip_downloads, original_downloads FROM events WHERE id = \(bind: eventID)").first() else {
                return (0, 0)
            }
            return (try row.decode(column: "zip_downloads", as: Int.self), try row.decode(column: "original_downloads", as: Int.self))
        }
    }
}
