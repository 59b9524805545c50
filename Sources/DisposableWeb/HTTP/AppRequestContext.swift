import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Hummingbird
import NIOCore

/// Per-request data: who is asking (if anyone) and from where.
public struct AppRequestContext: ClientRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The connection's event loop: long downloads pace themselves on it (`PacedWriter`).
    package let eventLoop: any EventLoop
    /// Set by `AuthenticationMiddleware` from a bearer token or the session cookie.
    package var identity: Identity?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        eventLoop = source.channel.eventLoop
        clientAddress = remoteAddress?.ipAddress ?? "local"
    }

    /// The key rate limits count against: the client's IP address, the socket's unless a trusted proxy
    /// forwarded the request (`ClientAddressMiddleware`).
    package var clientAddress: String
    /// The socket's peer is a trusted proxy: whatever its headers say, the request came from elsewhere.
    package var viaTrustedProxy = false

    /// The signed-in user, or 401 / 403 for anyone else.
    package func requireUser() throws -> User {
        switch identity {
        case .user(let user, _): return user
        case .guest:
            throw Problem(
                .forbidden, "account-required", title: "Account required",
                detail: "Guests cannot do this. Create an account or sign in first.")
        case nil: throw Problem.unauthorized
        }
    }

    /// The instance's admin, or 401 / 403.
    package func requireAdmin() throws -> User {
        let user = try requireUser()
        guard user.isAdmin else {
            throw Problem(.forbidden, "admin-only", title: "Admin only", detail: "Only the administrator of this instance can see this.")
        }
        return user
    }

    /// Anyone with a valid token, or 401.
    package func requireIdentity() throws -> Identity {
        guard let identity else { throw Problem.unauthorized }
        return identity
    }
}
