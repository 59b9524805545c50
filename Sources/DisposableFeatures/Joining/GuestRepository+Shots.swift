import DisposableCore
import DisposablePlatform
import SQLKit

/// The film (`ShotLimit`): a guest's shots taken and held, by guarded updates inside the caller's transaction.
extension GuestRepository {
    /// Takes one shot; the guest's running number for it, or nil when none is left (shots held by resumable uploads
    /// under way count as used).
    package static func takeShot(guestID: String, shotsPerGuest: Int, in db: any SQLDatabase) async throws -> Int? {
        try await db.raw(
            """
            UPDATE guests SET shots_used = shots_used + 1
            WHERE id = \(bind: guestID) AND shots_used + shots_reserved < \(bind: shotsPerGuest) RETURNING shots_used
            """
        ).first()?.decode(column: "shots_used", as: Int.self)
    }

    /// Holds one shot for a resumable upload (UP-4) from its creation; false when none is left.
    package static func reserveShot(guestID: String, shotsPerGuest: Int, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE guests SET shots_reserved = shots_reserved + 1
            WHERE id = \(bind: guestID) AND shots_used + shots_reserved < \(bind: shotsPerGuest) RETURNING id
            """
        ).first() != nil
    }

    /// The held shot becomes the photo's: its running number.
    package static func takeReservedShot(guestID: String, in db: any SQLDatabase) async throws -> Int? {
        try await db.raw(
            """
            UPDATE guests SET shots_used = shots_used + 1, shots_reserved = shots_reserved - 1
            WHERE id = \(bind: guestID) AND shots_reserved > 0 RETURNING shots_used
            """
        ).first()?.decode(column: "shots_used", as: Int.self)
    }

    /// Gives a held shot back (the upload was ended, expired, or turned out to be a photo already there).
    package static func releaseShot(guestID: String, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE guests SET shots_reserved = shots_reserved - 1 WHERE id = \(bind: guestID) AND shots_reserved > 0").run()
    }
}
