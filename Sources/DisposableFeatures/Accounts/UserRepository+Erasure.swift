import DisposableCore
import DisposablePlatform
import SQLKit

/// The account's erasure.
extension UserRepository {
    /// The account's row, last in its erasure's transaction (what references it goes with it by cascade).
    package static func delete(userID: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM users WHERE id = \(bind: userID)").run()
    }
}
