import DisposableAPI
import DisposableCore
import DisposablePlatform
import Foundation
import Hummingbird
import Logging

/// A profile (SOC-5): the display name and a small picture. The picture goes through the photos' checks (format
/// from its bytes, pixel limit) and is re-encoded by the media pipeline — a 400 px JPEG with no metadata — so
/// nothing of the sent file but its pixels is ever served.
package struct ProfileService: Sendable {
    let users: UserRepository
    package let blobs: any BlobStore
    /// Pictures come in as every file does, under `avatarPolicy`, then one decode makes the 400 px JPEG.
    package let ingest: Ingest
    package let avatarPolicy: IngestPolicy

    init(users: UserRepository, blobs: any BlobStore, ingest: Ingest, avatarPolicy: IngestPolicy) {
        self.users = users
        self.blobs = blobs
        self.ingest = ingest
        self.avatarPolicy = avatarPolicy
    }

    package static func key(_ userID: String) -> String { "avatars/\(userID).jpg" }

    package func rename(_ user: User, to raw: String?) async throws {
        let name = try DisplayName.validate(raw, max: 80)
        try await users.setName(user.id, name)
    }

    /// The zone months and years are counted in (CAP-2, CAP-3) and pages show times in: an IANA name this server
    /// knows; nil forgets it (pages then use the browser's).
    package func setTimeZone(of user: User, to raw: String?) async throws {
        if let raw {
            // Foundation accepts a known name followed by a NUL ("Europe/Paris\0"): only the names' own characters.
            let nameCharacters = raw.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "/_-+0123456789".unicodeScalars.contains($0))
            }
            guard raw.count <= 64, nameCharacters, TimeZone(identifier: raw) != nil, raw.contains("/") || raw == "UTC" else {
                throw Problem.invalidField("timeZone", "The time zone must be a name such as “Europe/Paris” or “UTC”.")
            }
        }
        try await users.setTimeZone(user.id, raw)
    }

    /// The zones a person can choose, by name: the IANA regions this server knows, and UTC.
    package static let timeZones: [String] = (TimeZone.knownTimeZoneIdentifiers.filter { $0.contains("/") && !$0.hasPrefix("Etc/") } + ["UTC"])
        .sorted()

    /// Makes `raw` the account's username (stored lowercase); nil or blank removes it. Another account's → 409.
    package func setUsername(of user: User, to raw: String?) async throws {
        let username = try Username.validate(raw)
        guard let username else {
            _ = try await users.setUsername(user.id, nil)
            return
        }
        let taken = Problem.conflict("username-taken", "The username “\(username)” is already taken: try another.")
        do {
            guard try await users.setUsername(user.id, username) else { throw taken }
        } catch let problem as Problem {
            throw problem
        } catch {
            // Two accounts asked for it at once: the unique index let one of them have it.
            if let other = try await users.holder(ofUsername: username), other != user.id { throw taken }
            throw error
        }
    }

    /// `light`, `dark`, or `system` (follow the device).
    package func setAppearance(of user: User, to raw: String) async throws {
        guard raw == "system" || Appearance(rawValue: raw) != nil else {
            throw Problem.invalidField("appearance", "appearance must be “light”, “dark” or “system”.")
        }
        let stored = raw == "system" ? nil : raw
        try await users.setAppearance(user.id, stored)
    }

    /// What `PATCH /api/v1/me` answers: the profile as stored now.
    package func profile(of userID: String) async throws -> ProfileJSON? {
        guard let (user, timeZone) = try await users.withTimeZone(userID) else { return nil }
        return ProfileJSON(
            name: user.name, avatarURL: try await avatarURL(of: userID), timeZone: timeZone,
            username: user.username, appearance: user.appearance?.rawValue ?? "system")
    }

    package func timeZone(of userID: String) async throws -> String? {
        try await users.timeZone(of: userID)
    }

    /// Checks and re-encodes a picture, then makes it the account's; returns its URL.
    package func setAvatar(of user: User, body: RequestBody) async throws -> String {
        let staged = try await ingest.stage(body, declaredLength: nil, under: avatarPolicy)
        defer { staged.discard() }
        // The same check as a photo's (a 7000×7000 PNG of a few KB is refused here too), then one decode.
        guard case .image(let format) = try await ingest.identify(staged, under: avatarPolicy).format else { throw Problem.picturesOnly }
        let rendered: RenderedImage
        do {
            rendered = try await ingest.images.render(staged.file.path, format: format)
        } catch is UndecodableImage {
            throw Problem(
                .unprocessableContent, "unreadable-image", title: "Broken picture", detail: "This picture cannot be read: it may be damaged.")
        }
        try await blobs.put(data: rendered.thumbnail, key: Self.key(user.id))
        let version = try await users.nextAvatarVersion(user.id)
        return Self.url(userID: user.id, version: version)
    }

    package func removeAvatar(of user: User) async throws {
        try await users.removeAvatar(user.id)
        try await blobs.delete(key: Self.key(user.id))
    }

    /// The picture's URL, or nil when the account has none.
    package func avatarURL(of userID: String) async throws -> String? {
        try await users.avatarVersion(of: userID).map { Self.url(userID: userID, version: $0) }
    }

    /// The picture's bytes (a JPEG), or nil.
    package func avatar(of userID: String) async throws -> ByteBuffer? {
        guard userID.utf8.count <= 64, try await avatarURL(of: userID) != nil else { return nil }
        return try await blobs.contents(key: Self.key(userID))
    }

    package static func url(userID: String, version: Int) -> String { "/api/v1/users/\(userID)/avatar.jpg?v=\(version)" }
}
