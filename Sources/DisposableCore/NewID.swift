import Foundation

/// A new opaque id: 128 random bits, lowercase hex.
package func newID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
}
