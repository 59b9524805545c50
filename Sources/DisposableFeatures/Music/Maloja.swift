import DisposableCore
import DisposablePlatform
import Foundation

/// A self-hosted Maloja scrobbler, through its native API (`/apis/mlj_1/…`): whether an API key is one of its own,
/// and a month's most played track. The address is the person's, so every call goes through `OutboundHTTP` (public
/// addresses only, no redirect, answers up to 1 MB), and what goes wrong is said without what the far end answered
/// (a link is not a way to probe a network).
package struct Maloja: Sendable {
    package let outbound: OutboundHTTP

    package init(outbound: OutboundHTTP) {
        self.outbound = outbound
    }

    package struct Track: Sendable, Equatable {
        package let title: String
        package let artists: [String]
    }

    package enum Failure: Error, Equatable {
        /// Nothing answered, or not as Maloja does.
        case unreachable
        /// Maloja answered that the key is not one of its own.
        case wrongKey
    }

    /// Checks that `base` is a Maloja server and `key` one of its API keys.
    package func check(_ base: URL, key: String) async throws {
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "key", value: key)]
        let (status, body) = try await get(base, "test", query: query.percentEncodedQuery ?? "")
        if status == 403 { throw Failure.wrongKey }
        guard status == 200, (body["status"] as? String) == "ok" else { throw Failure.unreachable }
    }

    /// The track played most from the first to the last day given (Maloja counts days in its own time zone), or nil
    /// when none was.
    package func topTrack(_ base: URL, from: DateComponents, to: DateComponents) async throws -> Track? {
        let day = { (date: DateComponents) in String(format: "%04d/%02d/%02d", date.year ?? 0, date.month ?? 0, date.day ?? 0) }
        let (status, body) = try await get(base, "charts/tracks", query: "from=\(day(from))&to=\(day(to))")
        guard status == 200, let list = body["list"] as? [[String: Any]] else { throw Failure.unreachable }
        let ranked = list.sorted { ($0["rank"] as? Int ?? .max) < ($1["rank"] as? Int ?? .max) }
        guard let track = ranked.first?["track"] as? [String: Any], let title = track["title"] as? String, !title.isEmpty else { return nil }
        return Track(title: title, artists: (track["artists"] as? [String]) ?? [])
    }

    private func get(_ base: URL, _ endpoint: String, query: String) async throws -> (UInt, [String: Any]) {
        let path = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        guard let url = URL(string: "\(path)/apis/mlj_1/\(endpoint)?\(query)") else { throw Failure.unreachable }
        do {
            let response = try await outbound.send(.init(url: url, headers: [("Accept", "application/json")]), purpose: "scrobbler")
            let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
            return (UInt(response.status), json)
        } catch {
            throw Failure.unreachable
        }
    }
}
