import DisposableCore
import DisposablePlatform
import Foundation
import JWTKit

/// The ID token of OpenID Connect Core §2: who the provider says signed in, for which client, until when.
/// Its signature is checked by jwt-kit against the provider's keys; its claims by `checked`, against this instance's
/// settings, the attempt's nonce and the app's clock.
package struct IDToken: JWTPayload {
    package let iss: String
    package let sub: String
    package let aud: AudienceClaim
    package let exp: ExpirationClaim
    package let azp: String?
    package let nonce: String?
    package let email: String?
    /// A boolean, or "true"/"false" as some providers write it.
    package let emailVerified: BoolClaim?
    package let name: String?

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, azp, nonce, email, name
        case emailVerified = "email_verified"
    }

    /// Claims are checked in `checked`, where the settings and the clock are known.
    package func verify(using _: some JWTAlgorithm) throws {}

    /// Why a token is refused. Each case is a test.
    package enum Rejection: Error, Equatable {
        case signature, issuer, audience, expired, nonce, subject
    }

    /// A token whose signature is one of the provider's keys and whose claims are this sign-in's; else a `Rejection`.
    /// A minute of leeway on `exp` for clocks a little apart.
    package static func checked(
        _ token: String, keys: JWTKeyCollection, settings: OpenIDSettings, nonce: String, now: Date
    ) async throws -> IDToken {
        let payload: IDToken
        do {
            // Every key of the provider's set is tried when the one the token names (or, naming none, the first)
            // does not match: providers that give no ids, and those mid-rotation, sign with any of them.
            payload = try await keys.verify(token, as: IDToken.self, iteratingKeys: true)
        } catch {
            throw Rejection.signature
        }
        // Google may write its issuer without the scheme, as its documentation says.
        let google = settings.issuer == "https://accounts.google.com" && payload.iss == "accounts.google.com"
        guard OpenIDProvider.trimmed(payload.iss) == settings.issuer || google else { throw Rejection.issuer }
        // Several audiences are allowed only when this client is the one the token was issued to (Core §3.1.3.7).
        guard payload.aud.value.contains(settings.clientID), payload.aud.value.count == 1 || payload.azp == settings.clientID else {
            throw Rejection.audience
        }
        guard payload.exp.value.addingTimeInterval(60) > now else { throw Rejection.expired }
        guard let sent = payload.nonce, sent.equalsInConstantTime(nonce) else { throw Rejection.nonce }
        guard !payload.sub.isEmpty, payload.sub.utf8.count <= 255 else { throw Rejection.subject }
        return payload
    }

    /// The e-mail when the provider says it checked it belongs to this person.
    package var verifiedEmail: String? {
        emailVerified?.value == true ? email : nil
    }
}
