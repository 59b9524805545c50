import SQLKit

/// The columns other features keep on the person, written in their transactions, and the account's erasure.
extension UserRepository {
    /// Marks `month`'s capsule made for the account unless it already was; whether this call did.
    static func markCapsuleMonth(_ month: String, userID: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE users SET capsule_month = \(bind: month)
            WHERE id = \(bind: userID) AND (capsule_month IS NULL OR capsule_month < \(bind: month)) RETURNING id
            """
        ).first() != nil
    }

    /// The account's next library revision number (its library's change counter); nil when the account is gone.
    static func nextLibraryRevision(userID: String, in db: any SQLDatabase) async throws -> Int64? {
        try await db.raw("UPDATE users SET library_seq = library_seq + 1 WHERE id = \(bind: userID) RETURNING library_seq").first()?
            .decode(column: "library_seq", as: Int64.self)
    }

    /// The account's row, last in its erasure's transaction (what references it goes with it by cascade).
    static func delete(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM users WHERE id = \(bind: userID)").run()
    }
}
