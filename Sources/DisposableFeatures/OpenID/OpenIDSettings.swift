import DisposableCore
import DisposablePlatform
import Foundation

/// "Sign in with OpenID Connect": the provider an instance trusts — Google, Authentik, Keycloak,
/// Authelia, Microsoft… — found from its issuer URL, and how the sign-in page offers it.
public struct OpenIDSettings: Sendable, Equatable {
    /// The issuer exactly as the provider writes it in its discovery document and tokens,
    /// e.g. `https://accounts.google.com`.
    public let issuer: String
    /// The id the provider gave this instance when it was registered there.
    public let clientID: String
    /// The client's secret; nil for a public client (then PKCE alone proves the code is ours).
    public let clientSecret: String?
    /// The button's words, e.g. "Sign in with Google"; nil says "Sign in with single sign-on" in the reader's language.
    public let buttonLabel: String?
    /// Hide the password forms: people sign in and register through the provider only.
    public let only: Bool

    /// Checks what an operator typed; the messages name the flags.
    public init(issuer: String, clientID: String, clientSecret: String?, buttonLabel: String?, only: Bool) throws {
        var issuer = issuer
        while issuer.hasSuffix("/") { issuer.removeLast() }
        guard let url = URL(string: issuer), let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil,
            url.scheme == "https" || (url.scheme == "http" && Self.isLoopback(host))
        else {
            throw SettingError(
                "--oidc-issuer must be an https:// address (http:// only on this machine, for tests), e.g. https://accounts.google.com.")
        }
        guard !clientID.isEmpty, clientID.count <= 500 else { throw SettingError("--oidc-client-id must be the client id the provider gave.") }
        if let buttonLabel, buttonLabel.isEmpty || buttonLabel.count > 60 {
            throw SettingError("--oidc-button-label must be 1 to 60 characters, e.g. “Sign in with Google”.")
        }
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret.flatMap { $0.isEmpty ? nil : $0 }
        self.buttonLabel = buttonLabel
        self.only = only
    }

    /// The issuer's scheme, host and port: the sign-in page sends browsers there (its `form-action`).
    package var origin: String {
        Self.origin(of: issuer) ?? issuer
    }

    package static func origin(of address: String) -> String? {
        guard let url = URLComponents(string: address), let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    package static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
    }

    /// A setting that cannot be used, said in a sentence.
    public struct SettingError: Error, CustomStringConvertible {
        public let description: String
        package init(_ description: String) { self.description = description }
    }
}
