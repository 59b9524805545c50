import Foundation

/// `GET /api/v1/me/openid`: the instance's OpenID Connect provider as a signed-in person sees it.
public struct OpenIDStatusJSON: Codable, Sendable, Equatable {
    /// The provider's issuer URL, e.g. `https://accounts.google.com`.
    public var issuer: String
    /// The sign-in button's words, if the admin set them.
    public var buttonLabel: String?
    /// Whether this account is linked to a person at the provider.
    public var linked: Bool
    /// The e-mail the provider gave when linked.
    public var email: String?
    public var linkedAt: Date?
    /// Whether the account has a password (one opened by the provider has none until its owner sets one); without
    /// one it cannot be unlinked.
    public var hasPassword: Bool

    public init(issuer: String, buttonLabel: String?, linked: Bool, email: String?, linkedAt: Date?, hasPassword: Bool) {
        self.issuer = issuer
        self.buttonLabel = buttonLabel
        self.linked = linked
        self.email = email
        self.linkedAt = linkedAt
        self.hasPassword = hasPassword
    }
}
