import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Events in the database.
struct EventRepository: Sendable {
    package let database: Database

    /// Stores a new event under a fresh unique code (drawn again in the rare case of a collision).
    package func create(_ makeEvent: @Sendable (EventCode) -> Event) async throws -> Event {
        for _ in 0..<8 {
            let event = makeEvent(EventCode.random())
            let inserted = try await database.sql { db in
                try await db.raw(
                    """
                    INSERT INTO events (id, organizer_id, code, join_key, name, description, starts_at, ends_at, shots_per_guest,
                        reveal_mode, reveal_at, reveals_at, allow_library_uploads, allow_guest_downloads, password_hash, max_guests,
                        require_approval, posts_count_as_shots, allow_videos, created_at, updated_at)
                    VALUES (\(bind: event.id), \(bind: event.organizerID), \(bind: event.code.symbols), \(bind: event.joinKey), \(bind: event.name),
                        \(bind: event.description), \(bind: event.startsAt.millisecondsSince1970), \(bind: event.endsAt.millisecondsSince1970),
                        \(bind: event.shotsPerGuest), \(bind: event.revealMode.rawValue), \(bind: event.revealAt?.millisecondsSince1970),
                        \(bind: event.revealsAt.millisecondsSince1970), \(bind: event.allowLibraryUploads), \(bind: event.allowGuestDownloads), \(bind: event.passwordHash),
                        \(bind: event.maxGuests), \(bind: event.requireApproval), \(bind: event.postsCountAsShots), \(bind: event.allowVideos), \(bind: event.createdAt.millisecondsSince1970),
                        \(bind: event.createdAt.millisecondsSince1970))
                    ON CONFLICT (code) DO NOTHING
                    RETURNING id
                    """
                ).first()
            }
            if inserted != nil { return event }
        }
        throw ConfigurationError("Could not find a free event code after 8 tries.")
    }

    public func find(id: String) async throws -> Event? {
        try await database.read { db in try await Self.find(id: id, in: db) }
    }

    package static func find(id: String, in db: any SQLDatabase) async throws -> Event? {
        try await db.raw("SELECT * FROM events WHERE id = \(bind: id)").first().map(Self.event(from:))
    }

    package func find(code: EventCode) async throws -> Event? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM events WHERE code = \(bind: code.symbols)").first().map(Self.event(from:))
        }
    }

    package func find(wallKey: String) async throws -> Event? {
        try await database.sql { db in
            try await db.raw("SELECT * FROM events WHERE wall_key = \(bind: wallKey)").first().map(Self.event(from:))
        }
    }

    /// Gives the event a wall key: `key` where it has none (or always, with `replacing`), or none with nil.
    package func setWallKey(eventID: String, _ key: String?, replacing: Bool) async throws {
        try await database.sql { db in
            if replacing || key == nil {
                try await db.raw("UPDATE events SET wall_key = \(bind: key) WHERE id = \(bind: eventID)").run()
            } else {
                try await db.raw("UPDATE events SET wall_key = \(bind: key) WHERE id = \(bind: eventID) AND wall_key IS NULL").run()
            }
        }
    }

    /// The events a user organizes (owns or co-organizes) or joined as a guest (EV-4), newest first.
    package func list(forUser userID: String) async throws -> [Event] {
        try await database.sql { db in
            try await db.raw(
                """
                SELECT * FROM events
                WHERE organizer_id = \(bind: userID)
                   OR id IN (SELECT event_id FROM co_organizers WHERE user_id = \(bind: userID))
                   OR id IN (SELECT event_id FROM guests WHERE user_id = \(bind: userID) AND left_at IS NULL)
                ORDER BY starts_at DESC, id
                """
            ).all().map(Self.event(from:))
        }
    }

    /// Saves the editable settings of an event (EV-2 is checked by the caller) and logs the change.
    /// Moving the end or the reveal into the future re-arms their announcements.
    package func update(_ event: Event, now: Date, change: @escaping @Sendable (Event) -> ChangePayload) async throws {
        try await database.transaction { db in
            try await db.raw(
                """
                UPDATE events SET name = \(bind: event.name), description = \(bind: event.description),
                    starts_at = \(bind: event.startsAt.millisecondsSince1970), ends_at = \(bind: event.endsAt.millisecondsSince1970),
                    shots_per_guest = \(bind: event.shotsPerGuest), reveal_mode = \(bind: event.revealMode.rawValue),
                    reveal_at = \(bind: event.revealAt?.millisecondsSince1970), reveals_at = \(bind: event.revealsAt.millisecondsSince1970),
                    allow_library_uploads = \(bind: event.allowLibraryUploads), allow_guest_downloads = \(bind: event.allowGuestDownloads),
                    password_hash = \(bind: event.passwordHash), max_guests = \(bind: event.maxGuests),
                    require_approval = \(bind: event.requireApproval), posts_count_as_shots = \(bind: event.postsCountAsShots), allow_videos = \(bind: event.allowVideos), updated_at = \(bind: now.millisecondsSince1970),
                    end_announced = \(bind: event.endsAt <= now), reveal_announced = \(bind: event.revealsAt <= now)
                WHERE id = \(bind: event.id)
                """
            ).run()
            guard let saved = try await Self.find(id: event.id, in: db) else { return }
            try await ChangeLogRepository.append(change(saved), eventID: event.id, now: now, kindOfDatabase: database.kind, in: db)
        }
    }

    /// Ends a live or scheduled event now and logs it; an event that already ended keeps its end time.
    package func end(id: String, now: Date) async throws {
        try await database.transaction { db in
            guard
                try await db.raw(
                    """
                    UPDATE events SET ends_at = \(bind: now.millisecondsSince1970), updated_at = \(bind: now.millisecondsSince1970),
                        end_announced = \(bind: true)
                    WHERE id = \(bind: id) AND ends_at > \(bind: now.millisecondsSince1970)
                    RETURNING id
                    """
                ).first() != nil
            else { return }
            try await ChangeLogRepository.append(
                ChangePayload(kind: .eventEnded, endsAt: now), eventID: id, now: now, kindOfDatabase: database.kind, in: db)
        }
    }

    /// Records the event's first photo, which locks most settings (EV-2). Called by the upload path.
    public static func markFirstPhoto(eventID: String, at date: Date, in db: any SQLDatabase) async throws {
        try await db.raw(
            "UPDATE events SET first_photo_at = \(bind: date.millisecondsSince1970) WHERE id = \(bind: eventID) AND first_photo_at IS NULL"
        ).run()
    }

    /// Takes one guest place if the event has room; false when it is full. Atomic on both engines.
    package static func claimGuestPlace(eventID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE events SET guest_count = guest_count + 1
            WHERE id = \(bind: eventID) AND (max_guests IS NULL OR guest_count < max_guests)
            RETURNING guest_count
            """
        ).first() != nil
    }

    package static func releaseGuestPlace(eventID: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE events SET guest_count = guest_count - 1 WHERE id = \(bind: eventID) AND guest_count > 0").run()
    }

    package static func event(from row: any SQLRow) throws -> Event {
        let column = ColumnReader(row)
        func date(_ name: String) throws -> Date { Date(millisecondsSince1970: try column(name, as: Int64.self)) }
        func optionalDate(_ name: String) throws -> Date? {
            try column.optional(name, as: Int64.self).map(Date.init(millisecondsSince1970:))
        }
        return Event(
            id: try column("id", as: String.self),
            organizerID: try column("organizer_id", as: String.self),
            code: EventCode(symbols: try column("code", as: String.self)),
            joinKey: try column("join_key", as: String.self),
            name: try column("name", as: String.self),
            description: try column("description", as: String.self),
            startsAt: try date("starts_at"),
            endsAt: try date("ends_at"),
            shotsPerGuest: try column("shots_per_guest", as: Int.self),
            revealMode: RevealMode(rawValue: try column("reveal_mode", as: String.self)) ?? .now,
            revealAt: try optionalDate("reveal_at"),
            allowLibraryUploads: try column("allow_library_uploads", as: Bool.self),
            allowGuestDownloads: try column("allow_guest_downloads", as: Bool.self),
            passwordHash: try column.optional("password_hash", as: String.self),
            maxGuests: try column.optional("max_guests", as: Int.self),
            requireApproval: try column("require_approval", as: Bool.self),
            postsCountAsShots: try column("posts_count_as_shots", as: Bool.self),
            allowVideos: try column("allow_videos", as: Bool.self),
            guestCount: try column("guest_count", as: Int.self),
            firstPhotoAt: try optionalDate("first_photo_at"),
            createdAt: try date("created_at"),
            changeSeq: try column("change_seq", as: Int64.self),
            wallKey: try column.optional("wall_key", as: String.self)
        )
    }
}
