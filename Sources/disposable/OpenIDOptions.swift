import ArgumentParser
import DisposableCore
import DisposableFeatures
import DisposablePlatform
import DisposableServer
import DisposableWeb

/// Sign in with an OpenID Connect provider: Google, Authentik, Keycloak, Authelia, Microsoft…
struct OpenIDOptions: ParsableArguments {
    @Option(
        help: """
            The provider's issuer URL, e.g. https://accounts.google.com (env DISPOSABLE_OIDC_ISSUER). Register \
            PUBLIC-URL/login/openid/callback as its redirect URI. None by default.
            """)
    var oidcIssuer: String? = env("DISPOSABLE_OIDC_ISSUER")

    @Option(help: "The client id the provider gave this server (env DISPOSABLE_OIDC_CLIENT_ID). The secret comes from OIDC_CLIENT_SECRET.")
    var oidcClientID: String? = env("DISPOSABLE_OIDC_CLIENT_ID")

    @Option(help: "The sign-in button's words, e.g. 'Sign in with Google' (env DISPOSABLE_OIDC_BUTTON_LABEL).")
    var oidcButtonLabel: String? = env("DISPOSABLE_OIDC_BUTTON_LABEL")

    @Flag(help: "Hide the password forms: people sign in and register through the provider only (env DISPOSABLE_OIDC_ONLY=true).")
    var oidcOnly = false

    /// The settings these options name; nil without an issuer.
    func settings() throws -> OpenIDSettings? {
        let only = oidcOnly || ["true", "1"].contains(env("DISPOSABLE_OIDC_ONLY") ?? "")
        guard let oidcIssuer, !oidcIssuer.isEmpty else {
            if oidcClientID != nil || only { throw ValidationError("--oidc-client-id and --oidc-only need --oidc-issuer.") }
            return nil
        }
        guard let oidcClientID else { throw ValidationError("--oidc-issuer needs --oidc-client-id, the client id the provider gave.") }
        do {
            return try OpenIDSettings(
                issuer: oidcIssuer, clientID: oidcClientID, clientSecret: env("OIDC_CLIENT_SECRET"), buttonLabel: oidcButtonLabel, only: only)
        } catch let error as OpenIDSettings.SettingError {
            throw ValidationError(error.description)
        }
    }
}
