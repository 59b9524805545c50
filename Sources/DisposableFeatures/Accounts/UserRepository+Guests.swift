import DisposableCore
import DisposablePlatform
import Foundation

extension UserRepository {
    /// The account takes a guest over: the guests' owner links them (`GuestRepository.link`).
    package func takeOver(guestID: String, userID: String) async throws {
        try await database.transaction { db in
            try await GuestRepository.link(guestID: guestID, toAccount: userID, in: db)
        }
    }
}
