import DisposableCore
import Foundation

/// Where the server may send a request that someone else addressed (a browser's push service, a person's
/// scrobbler, the OpenID provider): public internet addresses only. Loopback, private, carrier-grade NAT,
/// link-local (cloud metadata lives there), unique-local, multicast, documentation and unspecified addresses
/// are this machine's or its network's, which no visitor may make the server call.
package struct AddressPolicy: Sendable {
    /// Test-only: the tests' push service, scrobbler and provider listen on loopback. Set by the tests alone (never
    /// offered by `serve --help`); private networks stay refused even then.
    package var allowsLoopback = false

    package init(allowsLoopback: Bool = false) {
        self.allowsLoopback = allowsLoopback
    }

    /// Whether a resolved address (4 or 16 bytes) may be connected to.
    package func allows(_ bytes: [UInt8]) -> Bool {
        if allowsLoopback, Self.isLoopback(bytes) { return true }
        return Self.isPublic(bytes)
    }

    /// What a URL someone gives may name, before any lookup: http or https, a name (not a literal address, not
    /// `localhost`), no user or password in it. A name that does not resolve now is not refused: push services
    /// and home servers come and go, and every connection is checked again after resolution.
    package func check(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            return "The address must start with https:// or http://."
        }
        guard let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil else {
            return "The address must name a server, without a user or password."
        }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if allowsLoopback, host == "localhost" || IPAddress.bytes(bare).map(Self.isLoopback) == true { return nil }
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") || host.hasSuffix(".internal") {
            return "The address must be a public server's name, not one of this network's."
        }
        if IPAddress.bytes(bare) != nil || Self.looksNumeric(bare) {
            return "The address must be a server's name, not a numeric address."
        }
        // A single label (`vm`, `router`) is found through the machine's search domains, a trailing dot skips the
        // suffix checks above: both name this network's machines, never a public service.
        if !bare.contains(".") || bare.hasSuffix(".") {
            return "The address must be a public server's full name (like push.example.com)."
        }
        return nil
    }

    /// `2130706433`, `0x7f.1`, `127.1`: forms some resolvers read as addresses.
    private static func looksNumeric(_ host: String) -> Bool {
        host.split(separator: ".").allSatisfy { part in
            !part.isEmpty && (part.allSatisfy(\.isNumber) || part.lowercased().hasPrefix("0x"))
        }
    }

    package static func isLoopback(_ bytes: [UInt8]) -> Bool {
        bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    package static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 { return !v4Reserved.contains { $0.contains(bytes) } }
        guard bytes.count == 16 else { return false }
        // Addresses that carry an IPv4 address (mapped, NAT64, 6to4) are judged by it.
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return isPublic(Array(bytes[12...])) }
        if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublic(Array(bytes[12...])) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isPublic(Array(bytes[2..<6])) }
        // Only global unicast (2000::/3) is public; inside it, documentation and Teredo ranges are not.
        guard bytes[0] & 0xE0 == 0x20 else { return false }
        return !v6Reserved.contains { $0.contains(bytes) }
    }

    private static func network(_ text: String) -> TrustedProxies.Network {
        let parts = text.split(separator: "/")
        return TrustedProxies.Network(address: IPAddress.bytes(String(parts[0]))!, prefixLength: Int(parts[1])!)
    }

    private static let v4Reserved = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4",
    ].map(network)

    private static let v6Reserved = ["2001::/32", "2001:db8::/32", "2001:10::/28", "2001:20::/28", "3fff::/20"].map(network)
}
