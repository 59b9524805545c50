import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import SQLKit

/// Guests of events in the database.
struct GuestRepository: Sendable {
    package let database: Database

    /// The name as it will show in the event: a second "Maggie" becomes "Maggie 2", so that everyone can tell
    /// whose photo is whose. Chosen in the joining transaction.
    package static func distinctName(_ name: String, eventID: String, in db: any SQLDatabase) async throws -> String {
        let taken = Set(
            try await db.raw("SELECT name FROM guests WHERE event_id = \(bind: eventID) AND left_at IS NULL").all()
                .map { try $0.decode(column: "name", as: String.self).lowercased() })
        guard taken.contains(name.lowercased()) else { return name }
        var number = 2
        while taken.contains("\(name) \(number)".lowercased()) { number += 1 }
        return "\(name) \(number)"
    }

    package func insert(_ guest: Guest, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO guests (id, event_id, user_id, name, joined_at, shots_used)
            VALUES (\(bind: guest.id), \(bind: guest.eventID), \(bind: guest.userID), \(bind: guest.name),
                    \(bind: guest.joinedAt.millisecondsSince1970), 0)
            """
        ).run()
    }

    /// The current membership of an account in an event, if it joined as a guest.
    package func activeMembership(userID: String, eventID: String) async throws -> Guest? {
        try await database.read { db in
            try await db.raw(
                "SELECT * FROM guests WHERE user_id = \(bind: userID) AND event_id = \(bind: eventID) AND left_at IS NULL"
            ).first().map { try Self.guest(from: $0) }
        }
    }

    /// Marks the guest as gone, revokes their tokens — all but `keptTokenHash`, the one the browser that left
    /// sets aside to come back with — and frees their place. Their photos stay (JN-3).
    package func leave(_ guest: Guest, now: Date, keepingTokenHash keptTokenHash: String? = nil) async throws {
        try await database.transaction { db in
            let left = try await db.raw(
                "UPDATE guests SET left_at = \(bind: now.millisecondsSince1970) WHERE id = \(bind: guest.id) AND left_at IS NULL RETURNING id"
            ).first()
            guard left != nil else { return }
            try await AccessTokenRepository.endGuestSessions(guestID: guest.id, keeping: keptTokenHash, in: db)
            try await EventRepository.releaseGuestPlace(eventID: guest.eventID, in: db)
        }
    }

    /// The guest's corrected name everywhere at once — the roster, their posts, their comments — in one
    /// transaction; another guest's name is made distinct as at joining. Returns the guest as renamed.
    package func rename(_ guest: Guest, to name: String, now: Date) async throws -> Guest {
        let kind = database.kind
        return try await database.transaction { db in
            let others = try await db.raw(
                "SELECT name FROM guests WHERE event_id = \(bind: guest.eventID) AND left_at IS NULL AND id <> \(bind: guest.id)"
            ).all().map { try $0.decode(column: "name", as: String.self).lowercased() }
            var shown = name
            var number = 2
            while Set(others).contains(shown.lowercased()) {
                shown = "\(name) \(number)"
                number += 1
            }
            try await db.raw("UPDATE guests SET name = \(bind: shown) WHERE id = \(bind: guest.id)").run()
            try await PhotoRepository.renameShooter(uploaderID: guest.id, to: shown, now: now, kind: kind, in: db)
            try await GuestbookRepository.renameAuthor(guest.id, eventID: guest.eventID, to: shown, in: db)
            return try await Self.find(id: guest.id, in: db) ?? guest
        }
    }

    /// Gives an account's guest of no account to that account, unless the account is a guest of that event already.
    package static func link(guestID: String, toAccount userID: String, in db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE guests SET user_id = \(bind: userID)
            WHERE id = \(bind: guestID) AND user_id IS NULL AND left_at IS NULL
              AND NOT EXISTS (
                SELECT 1 FROM guests other
                WHERE other.user_id = \(bind: userID) AND other.event_id = guests.event_id AND other.left_at IS NULL)
            """
        ).run()
    }

    /// The account's latest guest in an event, whether still in or gone: joining again is that guest again.
    package func latestMembership(userID: String, eventID: String) async throws -> Guest? {
        try await database.read { db in
            try await db.raw(
                """
                SELECT * FROM guests WHERE user_id = \(bind: userID) AND event_id = \(bind: eventID)
                ORDER BY left_at IS NULL DESC, joined_at DESC LIMIT 1
                """
            ).first().map { try Self.guest(from: $0) }
        }
    }

    /// A guest who left comes back in, with their name and the shots they had left, if there is a place for them.
    /// Returns the guest as they are now, or nil when the event is full.
    package func comeBack(_ guest: Guest) async throws -> Guest? {
        guard guest.leftAt != nil else { return guest }
        return try await database.transaction { db in
            guard try await EventRepository.claimGuestPlace(eventID: guest.eventID, in: db) else { return nil }
            return try await db.raw("UPDATE guests SET left_at = NULL WHERE id = \(bind: guest.id) RETURNING *").first()
                .map { try Self.guest(from: $0) }
        }
    }

    /// Stores a personal link (JN-5) by the hash of its token, in place of the guest's earlier ones: a guest has
    /// one live link at a time, so links do not pile up and the last one shown is the only one that works.
    package func storeLink(tokenHash: String, guestID: String, now: Date, expires: Date) async throws {
        try await database.transaction { db in
            try await db.raw("DELETE FROM guest_links WHERE guest_id = \(bind: guestID)").run()
            try await db.raw(
                """
                INSERT INTO guest_links (token_hash, guest_id, created_at, expires_at)
                VALUES (\(bind: tokenHash), \(bind: guestID), \(bind: now.millisecondsSince1970), \(bind: expires.millisecondsSince1970))
                """
            ).run()
        }
    }

    /// Revokes the guest's personal link, if there is one; returns whether there was.
    package func revokeLinks(guestID: String) async throws -> Bool {
        try await database.sql { db in
            try await db.raw("DELETE FROM guest_links WHERE guest_id = \(bind: guestID) RETURNING token_hash").all().count > 0
        }
    }

    /// Deletes links past their expiry; returns how many.
    package func purgeExpiredLinks(now: Date) async throws -> Int {
        try await database.sql { db in
            try await db.raw("DELETE FROM guest_links WHERE expires_at <= \(bind: now.millisecondsSince1970) RETURNING token_hash").all().count
        }
    }

    /// The guest a link would sign in as, without using it (the confirmation page).
    package func linkGuest(tokenHash: String, now: Date) async throws -> Guest? {
        try await database.sql { db in
            guard
                let row = try await db.raw(
                    "SELECT guest_id FROM guest_links WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now.millisecondsSince1970)"
                ).first(),
                let guest = try await Self.find(id: try row.decode(column: "guest_id", as: String.self), in: db), guest.leftAt == nil
            else { return nil }
            return guest
        }
    }

    /// Removes a personal link and returns its guest, if the link was valid and the guest is still in.
    package static func takeLink(tokenHash: String, now: Date, in db: any SQLDatabase) async throws -> Guest? {
        guard
            let row = try await db.raw("DELETE FROM guest_links WHERE token_hash = \(bind: tokenHash) RETURNING guest_id, expires_at").first(),
            try row.decode(column: "expires_at", as: Int64.self) > now.millisecondsSince1970,
            let guest = try await find(id: try row.decode(column: "guest_id", as: String.self), in: db),
            guest.leftAt == nil
        else { return nil }
        return guest
    }

    package static func recordTerms(guestID: String, version: String, at time: Date, in db: any SQLDatabase) async throws {
        try await db.raw(
            "UPDATE guests SET terms_version = \(bind: version), terms_accepted_at = \(bind: time.millisecondsSince1970) WHERE id = \(bind: guestID)"
        ).run()
    }

    /// The guests still in an event, in the order they joined, each with how many photos they have in it.
    package func roster(eventID: String, limit: Int) async throws -> [(guest: Guest, photos: Int)] {
        try await database.sql { db in
            try await db.raw(
                """
                SELECT guests.*, (SELECT COUNT(*) FROM photos WHERE photos.event_id = guests.event_id AND photos.uploader_id = guests.id AND photos.status <> 'failed') AS photo_count
                FROM guests WHERE event_id = \(bind: eventID) AND left_at IS NULL
                ORDER BY joined_at, id LIMIT \(bind: limit)
                """
            ).all().map { (try Self.guest(from: $0), try $0.decode(column: "photo_count", as: Int.self)) }
        }
    }

    package func find(id: String) async throws -> Guest? {
        try await database.sql { db in try await Self.find(id: id, in: db) }
    }

    package static func find(id: String, in db: any SQLDatabase) async throws -> Guest? {
        try await db.raw("SELECT * FROM guests WHERE id = \(bind: id)").first().map { try guest(from: $0) }
    }

    /// A guest from a row of `guests`, or from columns named `prefix` + column in a join.
    package static func guest(from row: any SQLRow, prefix: String = "") throws -> Guest {
        Guest(
            id: try row.decode(column: prefix + "id", as: String.self),
            eventID: try row.decode(column: prefix + "event_id", as: String.self),
            userID: try row.decode(column: prefix + "user_id", as: String?.self),
            name: try row.decode(column: prefix + "name", as: String.self),
            joinedAt: Date(millisecondsSince1970: try row.decode(column: prefix + "joined_at", as: Int64.self)),
            leftAt: try row.decode(column: prefix + "left_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            // A shot held by a resumable upload under way counts as used (UP-2 stays exact).
            shotsUsed: try row.decode(column: prefix + "shots_used", as: Int.self)
                + row.decode(column: prefix + "shots_reserved", as: Int.self)
        )
    }

    /// Every guest row an account joined events with (the account is being erased).
    package static func deleteMemberships(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM guests WHERE user_id = \(bind: userID)").run()
    }
}
