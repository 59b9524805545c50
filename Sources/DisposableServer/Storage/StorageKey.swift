import Crypto
import Foundation

/// The key photos are encrypted with at rest (`--storage-key-file`): 32 random bytes in a file the operator keeps
/// (and backs up apart from the photos: lose it and the photos are gone).
public struct StorageKey: Sendable {
    let key: SymmetricKey

    /// Reads the file: exactly 32 bytes (`head -c 32 /dev/urandom > storage.key`), or 64 hexadecimal digits.
    public init(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("The storage key file \(path) cannot be read.")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if data.count == 32 {
            key = SymmetricKey(data: data)
        } else if text.count == 64, let bytes = [UInt8](hex: text) {
            key = SymmetricKey(data: bytes)
        } else {
            throw ConfigurationError(
                "The storage key file \(path) must hold exactly 32 random bytes (make one with: head -c 32 /dev/urandom > \(path)).")
        }
    }

    init(bytes: Data) {
        key = SymmetricKey(data: bytes)
    }

    /// What the database keeps to recognise the key (never the key): an HMAC of a fixed text under it.
    var checkValue: String {
        Data(HMAC<SHA256>.authenticationCode(for: Data("disposable storage key check v1".utf8), using: key)).hex
    }
}
