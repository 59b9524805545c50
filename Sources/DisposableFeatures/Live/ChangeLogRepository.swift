import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Writes change entries — always inside the transaction of the change itself, so there is no change
/// without its entry and no entry without its change. Numbers come from a per-event counter taken
/// with `UPDATE … RETURNING`, which serialises writers of one event on both engines. Reads them back for the
/// live hub (`ChangeHub`).
struct ChangeLogRepository: Sendable {
    package let database: Database

    /// The newest sequence number of an event and its entries after `seq` (nil and none when it is gone).
    package func latestAndChanges(eventID: String, after seq: Int64, limit: Int) async throws -> (Int64?, [Change]) {
        try await database.sql { db in
            (try await Self.latest(eventID: eventID, in: db), try await Self.changes(eventID: eventID, after: seq, limit: limit, in: db))
        }
    }

    package func changes(eventID: String, after seq: Int64, limit: Int) async throws -> [Change] {
        try await database.sql { db in try await Self.changes(eventID: eventID, after: seq, limit: limit, in: db) }
    }

    package func latest(eventID: String) async throws -> Int64? {
        try await database.sql { db in try await Self.latest(eventID: eventID, in: db) }
    }

    /// PostgreSQL channel that tells other instances an event has news; the payload is the event id and the position of
    /// an entry, with a space between (`ChangeHub.notified`).
    package static let channel = "disposable_changes"

    /// PostgreSQL channel that tells every instance a request wrote something other than an upload (a sign-out, a
    /// guest removed, a setting changed): what they remember for reads may be out of date (`RecentReads`).
    package static let writesChannel = "disposable_writes"

    /// Says a write committed, on PostgreSQL; nothing on SQLite, whose one instance forgot already.
    package func announceWrite() async throws {
        guard database.kind == .postgres else { return }
        try await database.sql { db in try await db.raw("SELECT pg_notify(\(bind: Self.writesChannel), '')").run() }
    }

    /// Logs a change to a photo (added, ready, failed, removed).
    @discardableResult
    package static func append(_ kind: ChangeKind, photo: Photo, now: Date, kindOfDatabase: DatabaseKind, in db: any SQLDatabase) async throws
        -> Int64
    {
        try await append([kind], photo: photo, now: now, kindOfDatabase: kindOfDatabase, in: db)
    }

    /// Logs changes to a photo that change nothing else of its event's row (`FeedMove`; nil when the event is gone).
    package static func move(_ kinds: [ChangeKind], photo: Photo, now: Date, kindOfDatabase: DatabaseKind, in db: any SQLDatabase) async throws
        -> FeedMove?
    {
        let last = try await append(kinds, photo: photo, now: now, kindOfDatabase: kindOfDatabase, in: db)
        return last > 0 ? FeedMove(from: last - Int64(kinds.count), to: last) : nil
    }

    /// Logs changes to a photo under consecutive numbers, in one go (a photo added and ready at once).
    @discardableResult
    package static func append(_ kinds: [ChangeKind], photo: Photo, now: Date, kindOfDatabase: DatabaseKind, in db: any SQLDatabase) async throws
        -> Int64
    {
        let facts = kinds.map { kind in
            kind == .photoRemoved
                ? ChangePayload(kind: kind, photoId: photo.id) : ChangePayload(kind: kind, photo: PhotoJSON(photo, viewerID: nil, links: nil))
        }
        return try await append(facts, eventID: photo.eventID, photo: photo, now: now, kindOfDatabase: kindOfDatabase, in: db)
    }

    @discardableResult
    package static func append(
        _ facts: ChangePayload, eventID: String, photo: Photo? = nil, now: Date, kindOfDatabase: DatabaseKind, in db: any SQLDatabase
    ) async throws -> Int64 {
        try await append([facts], eventID: eventID, photo: photo, now: now, kindOfDatabase: kindOfDatabase, in: db)
    }

    /// The changes under the event's next numbers, in order; the last one's number (0 when the event is gone).
    private static func append(
        _ facts: [ChangePayload], eventID: String, photo: Photo?, now: Date, kindOfDatabase: DatabaseKind, in db: any SQLDatabase
    ) async throws -> Int64 {
        // Each row's number counts back from the last one the counter gives.
        let rows = try facts.enumerated().map { index, change in
            (
                back: Int64(facts.count - 1 - index), kind: change.kind.rawValue,
                json: String(decoding: try JSONEncoder.sorted.encode(change), as: UTF8.self)
            )
        }
        let count = Int64(rows.count)
        if kindOfDatabase == .postgres {
            // One round trip: the event's row stays locked from here to the commit, and every upload, render and
            // comment of the event waits for it (three statements under load made `record` 829 ms).
            let selects = rows.map { row -> SQLQueryString in
                """
                SELECT \(bind: eventID), change_seq - \(bind: row.back), \(bind: row.kind), \(bind: photo?.id), \(bind: photo?.uploaderID),
                    \(bind: row.json), \(bind: now.millisecondsSince1970) FROM counter
                """
            }
            let inserted = try await db.raw(
                """
                WITH counter AS (UPDATE events SET change_seq = change_seq + \(bind: count) WHERE id = \(bind: eventID) RETURNING change_seq)
                INSERT INTO changes (event_id, seq, kind, photo_id, uploader_id, payload, created_at)
                \(selects.joined(separator: " UNION ALL "))
                RETURNING seq, pg_notify(\(bind: channel), event_id || ' ' || seq)::text AS notified
                """
            ).all()
            return try inserted.map { try $0.decode(column: "seq", as: Int64.self) }.max() ?? 0  // none: the event is gone
        }
        guard
            let row = try await db.raw("UPDATE events SET change_seq = change_seq + \(bind: count) WHERE id = \(bind: eventID) RETURNING change_seq")
                .first()
        else { return 0 }  // the event is gone: nothing to log
        let last = try row.decode(column: "change_seq", as: Int64.self)
        let values = rows.map { row -> SQLQueryString in
            """
            (\(bind: eventID), \(bind: last - row.back), \(bind: row.kind), \(bind: photo?.id), \(bind: photo?.uploaderID),
             \(bind: row.json), \(bind: now.millisecondsSince1970))
            """
        }
        try await db.raw(
            """
            INSERT INTO changes (event_id, seq, kind, photo_id, uploader_id, payload, created_at)
            VALUES \(values.joined(separator: ", "))
            """
        ).run()
        return last
    }

    /// Tells other instances the event has news; delivered at commit, and only if the transaction commits.
    package static func notify(eventID: String, in db: any SQLDatabase) async throws {
        try await db.raw("SELECT pg_notify(\(bind: channel), \(bind: eventID))").run()
    }

    /// Changes of an event after `seq`, oldest first. Each payload is read once here, not per subscriber.
    package static func changes(eventID: String, after seq: Int64, limit: Int, in db: any SQLDatabase) async throws -> [Change] {
        let decoder = JSONDecoder.api
        return try await db.raw(
            """
            SELECT seq, kind, photo_id, uploader_id, payload, created_at FROM changes
            WHERE event_id = \(bind: eventID) AND seq > \(bind: seq) ORDER BY seq LIMIT \(unsafeRaw: String(limit))
            """
        ).all().compactMap { row in
            let column = ColumnReader(row)
            guard let kind = ChangeKind(rawValue: try column("kind", as: String.self)) else { return nil }
            return Change(
                seq: try column("seq", as: Int64.self), kind: kind,
                photoID: try column.optional("photo_id", as: String.self),
                uploaderID: try column.optional("uploader_id", as: String.self),
                facts: try decoder.decode(ChangePayload.self, from: Data(try column("payload", as: String.self).utf8)),
                createdAt: Date(millisecondsSince1970: try column("created_at", as: Int64.self)))
        }
    }

    /// The newest sequence number of an event (0 when nothing happened yet), or nil when it is gone.
    package static func latest(eventID: String, in db: any SQLDatabase) async throws -> Int64? {
        try await db.raw("SELECT change_seq FROM events WHERE id = \(bind: eventID)").first()?.decode(column: "change_seq", as: Int64.self)
    }
}
