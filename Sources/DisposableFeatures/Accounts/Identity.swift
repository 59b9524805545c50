/// Who a token belongs to: an account, or a guest of one event.
import DisposableCore
import DisposablePlatform

package enum Identity: Sendable {
    case user(User, tokenHash: String)
    case guest(Guest, tokenHash: String)

    package var tokenHash: String {
        switch self {
        case .user(_, let hash), .guest(_, let hash): hash
        }
    }
}
