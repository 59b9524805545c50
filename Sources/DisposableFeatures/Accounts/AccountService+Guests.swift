import DisposableCore
import DisposablePlatform
import Foundation

extension AccountService {
    /// A guest who signs up or in on their phone (or sends their guest token with the API's sign-up or sign-in)
    /// goes on as that guest: the account takes the guest over — the same roll, the same shots, listed among the
    /// account's photos — instead of joining again with a fresh roll. Nothing changes when the guest already
    /// belongs to an account, or when the account already is a guest of that event.
    package func keepGuest(_ identity: Identity?, for user: User) async throws {
        guard case .guest(let guest, _) = identity, guest.userID == nil else { return }
        try await users.takeOver(guestID: guest.id, userID: user.id)
    }
}
