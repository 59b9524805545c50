import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Logging

/// The month's song from a scrobbler the person runs — a self-hosted Maloja linked on My account (its
/// address and an API key). The capsule takes the month's most played track as its song; the person may change it.
/// Spotify's own API is not used: it needs an app registered with Spotify by whoever runs the instance.
package struct ScrobblerService: Sendable {
    let rows: ScrobblerRepository
    package let maloja: Maloja
    package let limiter: RateLimiter
    package let clock: any AppClock
    package let logger: Logger

    init(rows: ScrobblerRepository, maloja: Maloja, limiter: RateLimiter, clock: any AppClock, logger: Logger) {
        self.rows = rows
        self.maloja = maloja
        self.limiter = limiter
        self.clock = clock
        self.logger = logger
    }

    package static let maxURL = 500
    package static let maxKey = 200

    package func link(_ input: ScrobblerInput, for user: User) async throws -> ScrobblerJSON {
        guard input.kind == "maloja" else { throw Problem.invalidField("kind", "Only a Maloja server can be linked (kind \"maloja\").") }
        let url = try Self.address(input.url)
        if let refused = maloja.outbound.policy.check(url) { throw Problem.invalidField("url", refused.dropLast() + " (url).") }
        let key = input.apiKey.trimmingCharacters(in: .whitespaces)
        guard (1...Self.maxKey).contains(key.utf8.count), key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw Problem.invalidField("apiKey", "apiKey is the key made in Maloja's settings: 1 to \(Self.maxKey) printable characters.")
        }
        // Each link is a call out of this server: a few a minute.
        _ = try await limiter.take([.init(scope: .target, value: user.id)])
        do {
            try await maloja.check(url, key: key)
        } catch Maloja.Failure.wrongKey {
            throw Problem.invalidField("apiKey", "The Maloja server at \(url.absoluteString) does not know this API key.")
        } catch {
            throw Problem.invalidField("url", "No Maloja server answered at \(url.absoluteString). Check the address (with http:// or https://).")
        }
        let now = clock.now
        try await rows.replace(userID: user.id, url: url, apiKey: key, at: now)
        return ScrobblerJSON(kind: "maloja", url: url.absoluteString, linkedAt: Date(millisecondsSince1970: now.millisecondsSince1970))
    }

    package func linked(for user: User) async throws -> ScrobblerJSON {
        guard let row = try await rows.find(userID: user.id) else { throw Problem.notFound("No scrobbler is linked to your account.") }
        return ScrobblerJSON(kind: row.kind, url: row.url.absoluteString, linkedAt: row.linkedAt)
    }

    package func unlink(for user: User) async throws {
        try await rows.remove(userID: user.id)
    }

    /// `month`'s most played track, from the first to the last day of the month, or nil: nothing linked, nothing
    /// played, or the scrobbler away (a capsule never waits for it).
    package func song(of userID: String, in month: CapsuleMonth) async -> (title: String, artist: String?)? {
        do {
            guard let row = try await rows.find(userID: userID) else { return nil }
            var last = DateComponents(year: month.year, month: month.month)
            last.day = Calendar(identifier: .gregorian).range(of: .day, in: .month, for: month.start(in: .gmt))?.count ?? 28
            guard let track = try await maloja.topTrack(row.url, from: DateComponents(year: month.year, month: month.month, day: 1), to: last)
            else { return nil }
            let clean = { (text: String) in
                String(text.unicodeScalars.filter { !MomentService.refused($0) && $0 != "\n" }.map(Character.init))
                    .trimmingCharacters(in: .whitespaces)
            }
            let title = String(clean(track.title).prefix(CapsuleService.maxSongField))
            let artist = String(clean(track.artists.joined(separator: ", ")).prefix(CapsuleService.maxSongField))
            return title.isEmpty ? nil : (title, artist.isEmpty ? nil : artist)
        } catch {
            logger.warning("The scrobbler did not give \(month.text)'s song", metadata: ["user": "\(userID)"])
            return nil
        }
    }

    /// An http or https address with a host, no credentials, query or fragment; without its trailing slash.
    package static func address(_ raw: String) throws -> URL {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard text.utf8.count <= maxURL, let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil,
            parts.query == nil, parts.fragment == nil,
            let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text)
        else {
            throw Problem.invalidField(
                "url", "url is the Maloja server's address, such as https://music.example.org (http or https, at most \(maxURL) characters).")
        }
        return url
    }
}
