import Crypto
import DisposableCore
import Foundation

/// The key photos are encrypted with at rest (`--storage-key-file`): 32 random bytes in a file the operator keeps
/// (and backs up apart from the photos: lose it and the photos are gone).
public struct StorageKey: Sendable {
    package let key: SymmetricKey

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

    /// A sentence when others than the file's owner may read the key file (whoever reads it reads every photo).
    public static func exposure(of path: String) -> String? {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 else {
            return nil
        }
        return
            "The storage key file \(path) can be read by other users of this machine (mode \(String(mode & 0o777, radix: 8))): whoever reads it can read every photo. Make it the server's own: chmod 600 \(path)"
    }

    package init(bytes: Data) {
        key = SymmetricKey(data: bytes)
    }

    /// What the database keeps to recognise the key (never the key): an HMAC of a fixed text under it.
    package var checkValue: String {
        Data(HMAC<SHA256>.authenticationCode(for: Data("disposable storage key check v1".utf8), using: key)).hex
    }
}
