import Crypto
import DisposableCore
import DisposablePlatform
import Foundation

/// A Web Push message as the push service takes it: the payload encrypted for one browser (RFC 8291, `aes128gcm`
/// of RFC 8188 in one record) and the server's VAPID signature (RFC 8292). swift-crypto does the cryptography; only
/// the framing is written here (no listed package does Web Push).
package enum WebPushMessage {
    /// One record holds the whole payload: 4096 bytes, less the tag, the delimiter and some room.
    package static let maxPayload = 3_800

    /// `payload` encrypted for the subscription's `p256dh` public key and `auth` secret.
    package static func encrypt(
        _ payload: Data, p256dh: Data, auth: Data, salt: Data = randomBytes(16), serverKey: P256.KeyAgreement.PrivateKey = .init()
    ) throws -> Data {
        let browserKey = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: browserKey)
        let serverPublic = serverKey.publicKey.x963Representation
        // RFC 8291 §3.4: the input keying material, from the shared secret and the browser's auth secret.
        let keyMaterial = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: auth, sharedInfo: Data("WebPush: info\0".utf8) + p256dh + serverPublic, outputByteCount: 32)
        // RFC 8188 §2.2–2.3: the content encryption key and the nonce of the one record.
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: keyMaterial, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: keyMaterial, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        let sealed = try AES.GCM.seal(
            payload + [0x02], using: key, nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var header = salt
        withUnsafeBytes(of: UInt32(4096).bigEndian) { header.append(contentsOf: $0) }
        header.append(UInt8(serverPublic.count))
        header.append(serverPublic)
        return header + sealed.ciphertext + sealed.tag
    }

    /// `Authorization: vapid t=…, k=…` for a push service at `endpoint`'s origin, valid 12 hours.
    package static func vapid(_ key: P256.Signing.PrivateKey, endpoint: URL, subject: String, now: Date) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw URLError(.badURL) }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        let header = base64URL(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = try JSONSerialization.data(
            withJSONObject: ["aud": origin, "exp": Int(now.timeIntervalSince1970) + 12 * 3600, "sub": subject], options: [.sortedKeys])
        let signingInput = header + "." + base64URL(claims)
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        // No space after the comma: RFC 7235 allows either, and py_vapid (pywebpush's) reads only this one.
        return "vapid t=\(signingInput).\(base64URL(signature)),k=\(base64URL(key.publicKey.x963Representation))"
    }

    package static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    package static func fromBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    package static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
