import DisposableCore
import DisposablePlatform
import Foundation
import JWTKit

/// The provider, as its discovery document describes it (OpenID Connect Discovery 1.0): where to send people, where
/// to trade a code for tokens, and the keys its ID tokens are signed with. Fetched at first use and kept an hour;
/// the keys again when a token's signature matches none of them (the provider rotated them), at most once a minute.
package actor OpenIDProvider {
    package let settings: OpenIDSettings
    private let outbound: OutboundHTTP
    private var discovered: (document: Discovery, at: Date)?
    private var keys: (collection: JWTKeyCollection, at: Date)?

    package struct Discovery: Decodable, Sendable {
        package let issuer: String
        package let authorizationEndpoint: String
        package let tokenEndpoint: String
        package let jwksURI: String

        package enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
        }
    }

    /// What goes wrong with the provider, said to the person without what it answered.
    package enum Failure: Error, Equatable {
        /// It did not answer, or not as a provider does.
        case unreachable
        /// It refused the code: used already, expired, or not ours.
        case codeRefused
    }

    package init(settings: OpenIDSettings, outbound: OutboundHTTP) {
        self.settings = settings
        self.outbound = outbound
    }

    package func discovery(now: Date = Date()) async throws -> Discovery {
        if let discovered, now.timeIntervalSince(discovered.at) < 3600 { return discovered.document }
        let (status, body) = try await get(settings.issuer + "/.well-known/openid-configuration")
        guard status == 200, let document = try? JSONDecoder().decode(Discovery.self, from: body) else { throw Failure.unreachable }
        // The document must be the issuer's own (Discovery §4.3), and every endpoint as safe as the issuer. People are
        // sent to the issuer's own origin only: the pages' `form-action` allows that one (Google, Microsoft,
        // Keycloak, Authentik and Authelia all sign people in on their issuer's host).
        let endpoints = [document.authorizationEndpoint, document.tokenEndpoint, document.jwksURI]
        guard Self.trimmed(document.issuer) == settings.issuer, endpoints.allSatisfy(Self.isSafeEndpoint),
            OpenIDSettings.origin(of: document.authorizationEndpoint) == settings.origin
        else { throw Failure.unreachable }
        discovered = (document, now)
        return document
    }

    /// The provider's signing keys; `refresh` fetches them again unless they were fetched in the last minute.
    package func signingKeys(refresh: Bool = false, now: Date = Date()) async throws -> JWTKeyCollection {
        if let keys, now.timeIntervalSince(keys.at) < (refresh ? 60 : 3600) { return keys.collection }
        let (status, body) = try await get(try await discovery(now: now).jwksURI)
        guard status == 200, let set = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let list = set["keys"] as? [Any]
        else { throw Failure.unreachable }
        let collection = JWTKeyCollection()
        // Key by key, so that one of a kind not known here does not lose the others. Only public keys made to sign
        // with an asymmetric algorithm: never a shared secret (`oct`), which would let whoever reads the set sign.
        // A key without an id (`kid` is optional, RFC 7517 §4.5) gets one made from its place in the set: jwt-kit
        // keeps keys by id and would refuse it, leaving a provider that names none with no key at all.
        for (index, entry) in list.enumerated() {
            guard var fields = entry as? [String: Any], ["RSA", "EC", "OKP"].contains(fields["kty"] as? String ?? ""),
                fields["d"] == nil, (fields["use"] as? String ?? "sig") == "sig"
            else { continue }
            if (fields["kid"] as? String ?? "").isEmpty { fields["kid"] = "unnamed-\(index)" }
            guard let data = try? JSONSerialization.data(withJSONObject: fields), let key = try? JSONDecoder().decode(JWK.self, from: data)
            else { continue }
            _ = try? await collection.add(jwk: key)
        }
        keys = (collection, now)
        return collection
    }

    /// Trades an authorization code for the ID token (RFC 6749 §4.1.3, with the PKCE verifier of RFC 7636).
    package func idToken(code: String, verifier: String, redirectURI: String) async throws -> String {
        let endpoint = try await discovery().tokenEndpoint
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        guard let url = URL(string: endpoint) else { throw Failure.unreachable }
        var request = OutboundHTTP.Request(
            method: .POST, url: url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")])
        if let secret = settings.clientSecret {
            // client_secret_basic: each part form-encoded first (RFC 6749 §2.3.1).
            let pair = "\(Self.formEncoded(settings.clientID)):\(Self.formEncoded(secret))"
            request.headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        } else {
            form.append(("client_id", settings.clientID))
        }
        request.body = Data(form.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&").utf8)
        let (status, body) = try await send(request)
        if (400..<500).contains(status) { throw Failure.codeRefused }
        guard status == 200, let answer = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let token = answer["id_token"] as? String
        else { throw Failure.unreachable }
        return token
    }

    private func get(_ url: String) async throws -> (Int, Data) {
        guard let url = URL(string: url) else { throw Failure.unreachable }
        return try await send(OutboundHTTP.Request(url: url, headers: [("Accept", "application/json")]))
    }

    private func send(_ request: OutboundHTTP.Request) async throws -> (Int, Data) {
        do {
            let response = try await outbound.send(request, purpose: "openid")
            return (response.status, response.body)
        } catch {
            throw Failure.unreachable
        }
    }

    package static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// https, or http on this machine (a provider run by the tests).
    package static func isSafeEndpoint(_ raw: String) -> Bool {
        guard let url = URL(string: raw), let host = url.host, !host.isEmpty else { return false }
        return url.scheme == "https" || (url.scheme == "http" && OpenIDSettings.isLoopback(host))
    }

    package static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
