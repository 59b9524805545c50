import Crypto
import DisposableCore
import DisposablePlatform
import Foundation

/// The secrets handed out in links and sessions (session tokens, reset and sign-up links, wall keys): made here,
/// and stored only as their SHA-256, so a leaked database opens nothing.
package enum SecretToken {
    /// A fresh token: 256 random bits, URL-safe base64.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What is stored of a token.
    package static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hex
    }
}
