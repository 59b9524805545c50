import Foundation
import SQLKit

/// The film in the disposable camera (UP-2): each guest has the event's `shotsPerGuest` shots; organizers
/// have no limit. Checked before an upload is read (a quick refusal), and taken for good by a guarded UPDATE
/// in the transaction that records the photo — so N parallel uploads with k shots left get exactly k, and a
/// retry or a duplicate (which rolls the transaction back) never costs one.
enum ShotLimit {
    /// Refuses at once when the guest has no shot left.
    static func check(_ guest: Guest, shotsPerGuest: Int) throws {
        if guest.shotsUsed >= shotsPerGuest { throw reached(shotsPerGuest) }
    }

    /// Takes one shot; the guest's running number for it, or nil when none is left (shots held by resumable uploads
    /// under way count as used).
    static func take(guestID: String, shotsPerGuest: Int, in db: any SQLDatabase) async throws -> Int? {
        try await db.raw(
            """
            UPDATE guests SET shots_used = shots_used + 1
            WHERE id = \(bind: guestID) AND shots_used + shots_reserved < \(bind: shotsPerGuest) RETURNING shots_used
            """
        ).first()?.decode(column: "shots_used", as: Int.self)
    }

    /// Holds one shot for a resumable upload (UP-4) from its creation; false when none is left.
    static func reserve(guestID: String, shotsPerGuest: Int, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE guests SET shots_reserved = shots_reserved + 1
            WHERE id = \(bind: guestID) AND shots_used + shots_reserved < \(bind: shotsPerGuest) RETURNING id
            """
        ).first() != nil
    }

    /// The held shot becomes the photo's: its running number.
    static func takeReserved(guestID: String, in db: any SQLDatabase) async throws -> Int? {
        try await db.raw(
            """
            UPDATE guests SET shots_used = shots_used + 1, shots_reserved = shots_reserved - 1
            WHERE id = \(bind: guestID) AND shots_reserved > 0 RETURNING shots_used
            """
        ).first()?.decode(column: "shots_used", as: Int.self)
    }

    /// Gives a held shot back (the upload was ended, expired, or turned out to be a photo already there).
    static func release(guestID: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE guests SET shots_reserved = shots_reserved - 1 WHERE id = \(bind: guestID) AND shots_reserved > 0").run()
    }

    static func reached(_ shots: Int) -> Problem {
        Problem(
            .forbidden, "shot-limit-reached", title: "No shots left",
            detail: "You have used all your \(shots) shots for this event — like a real disposable camera.")
    }
}
