import DisposableCore
import DisposableFeatures
import DisposablePlatform
import Foundation

/// Where a page may send the reader back to (`next`, `back`): only a plain path on this site (SEC-1).
///
/// Browsers are lenient: they drop tabs and new lines from addresses and read `\` as `/`, so `/\evil.example`
/// and `/%09/evil.example` lead to another site. Only printable ASCII without a backslash is accepted, and the
/// result must parse as a path with neither scheme nor host.
package enum LocalPath {
    package static func safe(_ raw: String?) -> String? {
        guard let raw, raw.hasPrefix("/"), !raw.hasPrefix("//"), raw.utf8.count <= 2048,
            raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }),
            let parsed = URLComponents(string: raw), parsed.scheme == nil, parsed.host == nil, parsed.path.hasPrefix("/"),
            !parsed.path.hasPrefix("//")
        else { return nil }
        return raw
    }
}
